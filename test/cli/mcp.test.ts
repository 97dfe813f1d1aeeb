import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { readTrace } from '../../src/trace/index.js';
import { CALC_AGENT, qitos, tempDir } from '../helpers/cli-harness.js';
import { ROOT, alive } from '../helpers/mcp-fixtures.js';

const FIXTURE = resolve(ROOT, 'test/fixtures/mcp/server.ts');
const fixture = (extra: Record<string, unknown> = {}) => ({
  type: 'stdio',
  command: process.execPath,
  args: ['--import', 'tsx', FIXTURE],
  cwd: ROOT,
  ...extra,
});

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir('qitos-mcp-cli-')));
afterEach(() => cleanup());

function writeConfig(mcp: Record<string, unknown>, name = 'qitos.yaml'): string {
  writeFileSync(join(dir, name), stringify({ mcp }));
  return name;
}
function writeScript(replies: unknown[], name = 'replies.json'): string {
  writeFileSync(join(dir, name), JSON.stringify(replies));
  return `scripted:${name}`;
}
/** The parts of the user message step 1 added to the history (as the trace's state diff records it). */
function firstUserParts(
  trace: Awaited<ReturnType<typeof readTrace>>,
): Array<{ type: string; source?: unknown; mime?: string; text?: string }> {
  const items = trace.steps[0].stateDiff.splice?.messages?.items as Array<{
    parts: Array<{ type: string; source?: unknown; mime?: string; text?: string }>;
  }>;
  return items[0].parts;
}
const act = (name: string, args: Record<string, unknown>) => ({
  text: JSON.stringify({ thought: 'use it', action: { name, args } }),
});
const final = (answer: string) => ({ text: JSON.stringify({ thought: 'done', final_answer: answer }) });

describe('qitos mcp call', () => {
  it(
    'calls one tool of a configured server: its output, --json, exit 1 on a tool error, clear ' +
      'errors for a wrong name or --args',
    async () => {
      const cfg = writeConfig({ fx: fixture() });
      const sum = await qitos(['mcp', 'call', 'fx', 'add', '--args', '{"a": 17, "b": 25}', '-c', cfg], dir);
      expect(sum.code, sum.err).toBe(0);
      expect(sum.out).toBe('42\n');
      const json = await qitos(['mcp', 'call', 'fx', 'dotted.name', '-c', cfg, '--json'], dir);
      expect(JSON.parse(json.out)).toEqual({ status: 'success', output: 'dotted ok', attachments: [] });
      const failed = await qitos(['mcp', 'call', 'fx', 'fail', '--args', '{"message": "no luck"}', '-c', cfg], dir);
      expect(failed.code).toBe(1);
      expect(failed.err).toMatch(/^error: .*no luck/m);
      const badArgs = await qitos(['mcp', 'call', 'fx', 'add', '--args', '{"a": "x", "b": 1}', '-c', cfg], dir);
      expect(badArgs.code).toBe(1);
      expect(badArgs.err).toMatch(
        /^error: Invalid arguments for tool "fx_add"[\s\S]*\ba: Invalid input: expected number/m,
      );
      expect((await qitos(['mcp', 'call', 'fx', 'nope', '-c', cfg], dir)).err).toMatch(
        /MCP server "fx" has no tool "nope" \(its tools: fx_add, /,
      );
      expect((await qitos(['mcp', 'call', 'other', 'add', '-c', cfg], dir)).err).toMatch(
        /has no MCP server "other" \(its servers: fx\)/,
      );
      expect((await qitos(['mcp', 'call', 'fx', 'add', '--args', '[1]', '-c', cfg], dir)).err).toMatch(
        /--args: expected a JSON object, got an array/,
      );
      expect((await qitos(['mcp', 'call', 'fx', 'add', '--args', '{a:1}', '-c', cfg], dir)).err).toMatch(
        /--args: not JSON/,
      );
    },
    180_000,
  );

  it("qitos run --mcp <file> adds that file's servers to the run", async () => {
    const servers = writeConfig({ fx: fixture() }, 'servers.yaml');
    const model = writeScript([act('fx_add', { a: 2, b: 3 }), final('5')]);
    const r = await qitos(
      ['run', CALC_AGENT, '--mcp', servers, '--model', model, '--task', 'Add 2 and 3', '--json'],
      dir,
    );
    expect(r.code, r.err).toBe(0);
    const trace = await readTrace(JSON.parse(r.out).traceDir);
    expect(trace.steps[0].results[0]).toMatchObject({ name: 'fx_add', status: 'success', output: '5' });
    writeFileSync(join(dir, 'empty.yaml'), 'engine:\n  maxSteps: 3\n');
    expect((await qitos(['run', CALC_AGENT, '--mcp', 'empty.yaml', '--model', model, '--task', 'x'], dir)).err).toMatch(
      /--mcp empty.yaml: the file has no MCP servers/,
    );
  }, 180_000);
});

describe('qitos mcp list', () => {
  it("shows each server's status, transport and tools; exit 1 when one failed; --json for scripts", async () => {
    const cfg = writeConfig({
      fx: fixture({ tools: { include: ['add', 'echo'] } }),
      off: fixture({ enabled: false }),
      ghost: { type: 'stdio', command: '/nonexistent/mcp-server' },
    });
    const text = await qitos(['mcp', 'list', '-c', cfg], dir);
    expect(text.code).toBe(1);
    expect(text.out).toMatch(/^server +type +transport +tools +resources +prompts +status$/m);
    expect(text.out).toMatch(/^fx +stdio +stdio +2 +yes +yes +connected$/m);
    expect(text.out).toMatch(/^off +stdio +- +0 +no +no +disabled$/m);
    expect(text.out).toMatch(/^ghost +stdio +- +0 +no +no +failed: command not found: \/nonexistent\/mcp-server$/m);
    expect(text.out).toMatch(/^fx: fx_add, fx_echo$/m);
    expect(text.out).toMatch(/^ {2}skipped fail: left out by the tools filter$/m);
    const json = await qitos(['mcp', 'list', '-c', cfg, '--json'], dir);
    const servers = JSON.parse(json.out).servers as Array<{ name: string; state: string; tools: string[] }>;
    expect(servers.map((s) => [s.name, s.state, s.tools.length])).toEqual([
      ['fx', 'connected', 2],
      ['off', 'disabled', 0],
      ['ghost', 'failed', 0],
    ]);
  }, 180_000);

  it('points at the line of a config mistake, and says when there are no servers', async () => {
    writeFileSync(join(dir, 'bad.yaml'), 'mcp:\n  fx:\n    type: stdio\n    command: node\n    timout: 5\n');
    const bad = await qitos(['mcp', 'list', '-c', 'bad.yaml'], dir);
    expect(bad.err).toBe('qitos: bad.yaml:5: mcp.fx.timout: unknown field "timout"\n');
    writeFileSync(join(dir, 'none.yaml'), 'engine:\n  maxSteps: 3\n');
    expect((await qitos(['mcp', 'list', '-c', 'none.yaml'], dir)).err).toBe(
      'qitos: none.yaml has no MCP servers (add an mcp: section, see docs/mcp.md)\n',
    );
  }, 180_000);
});

describe('qitos run / replay / fork with MCP servers', () => {
  it(
    "gives the agent the servers' tools, resolves mcp:// in the task, records the config " +
      'without secrets; replay and fork start the servers again',
    async () => {
      const cfg = writeConfig({
        fx: fixture({ env: { API_TOKEN: '${QITOS_TEST_TOKEN}', LITERAL_KEY: 'sk-literal-secret' } }),
      });
      const model = writeScript([
        act('fx_env_value', { name: 'API_TOKEN' }),
        act('fx_add', { a: 17, b: 25 }),
        final('42'),
      ]);
      const env = { QITOS_TEST_TOKEN: 'tok-from-env-123' };
      const r = await qitos(
        [
          'run',
          CALC_AGENT,
          '-c',
          cfg,
          '--model',
          model,
          '--task',
          'Add 17 and 25; notes: mcp://fx/fixture://notes.txt',
          '--json',
        ],
        dir,
        env,
      );
      expect(r.code, r.err).toBe(0);
      const out = JSON.parse(r.out);
      expect(out).toMatchObject({ stopReason: 'final', finalResult: '42' });

      const manifestText = readFileSync(join(out.traceDir, 'manifest.json'), 'utf8');
      expect(manifestText).not.toContain('tok-from-env-123');
      expect(manifestText).not.toContain('sk-literal-secret');
      const trace = await readTrace(out.traceDir);
      expect((trace.manifest.config as { mcp: { fx: { env: unknown } } }).mcp.fx.env).toEqual({
        API_TOKEN: '${QITOS_TEST_TOKEN}',
        LITERAL_KEY: '<redacted>',
      });
      expect(trace.manifest.tools).toEqual(expect.arrayContaining(['calc', 'fx_add', 'read_mcp_resource']));
      expect(trace.manifest.policies).toEqual(['mcp']);
      // The server got the expanded value (it echoes it back); the trace holds it redacted (docs/security.md).
      expect(trace.steps[0].results[0]).toMatchObject({
        name: 'fx_env_value',
        status: 'success',
        output: '[redacted]',
      });
      expect(readFileSync(join(out.traceDir, 'steps.jsonl'), 'utf8')).not.toContain('tok-from-env-123');
      const firstUser = firstUserParts(trace);
      expect(firstUser.map((p) => p.type)).toEqual(['text', 'text', 'file']);
      expect(firstUser[1].text).toBe('[resource mcp://fx/fixture://notes.txt (notes, text/plain)]');
      expect(firstUser[2].source).toEqual({ type: 'mcp', server: 'fx', uri: 'fixture://notes.txt' });

      // replay: the literal was not recorded, so that server cannot start from the trace alone, and the replay says so
      const broken = await qitos(['replay', out.traceDir, '--json'], dir, env);
      expect(broken.err).toMatch(/mcp: server "fx" is not available: mcp\.fx\.env\.LITERAL_KEY was not recorded/);
      expect(JSON.parse(broken.out).matched).toBe(false);
      // fork takes the value from --config; a config that names the variable instead replays as recorded
      const fix = writeConfig(
        { fx: fixture({ env: { API_TOKEN: '${QITOS_TEST_TOKEN}', LITERAL_KEY: '${QITOS_TEST_TOKEN}' } }) },
        'fix.yaml',
      );
      const forked = await qitos(
        [
          'fork',
          out.traceDir,
          '--at',
          '1',
          '-c',
          fix,
          '--model',
          writeScript([act('fx_add', { a: 1, b: 2 }), final('3')], 'fork.json'),
          '--json',
        ],
        dir,
        env,
      );
      expect(forked.code, forked.err).toBe(0);
      expect(JSON.parse(forked.out)).toMatchObject({ stopReason: 'final', finalResult: '3' });
      const forkTrace = await readTrace(JSON.parse(forked.out).traceDir);
      expect(forkTrace.steps.at(-2)!.results[0]).toMatchObject({ name: 'fx_add', output: '3' });
      const replayed = await qitos(['replay', JSON.parse(forked.out).traceDir, '--json'], dir, env);
      expect(replayed.code, replayed.err).toBe(0);
      expect(JSON.parse(replayed.out).matched).toBe(true);
    },
    180_000,
  );

  it('--mcp-prompt takes the task from a server prompt (its files go with the first message); --arg fills it in', async () => {
    const cfg = writeConfig({ fx: fixture() });
    const greet = await qitos(
      [
        'run',
        CALC_AGENT,
        '-c',
        cfg,
        '--model',
        writeScript([final('Hello, Ada!')]),
        '--mcp-prompt',
        'fx/greet',
        '--arg',
        'name=Ada',
        '--arg',
        'style=warm',
        '--json',
      ],
      dir,
    );
    expect(greet.code, greet.err).toBe(0);
    const trace = await readTrace(JSON.parse(greet.out).traceDir);
    expect(trace.manifest.task).toMatchObject({
      objective: 'Write a warm greeting for Ada.',
      metadata: { mcpPrompt: { server: 'fx', name: 'greet', arguments: { name: 'Ada', style: 'warm' } } },
    });

    const look = await qitos(
      [
        'run',
        CALC_AGENT,
        '-c',
        cfg,
        '--model',
        writeScript([final('transparent')], 'look.json'),
        '--mcp-prompt',
        'fx/look',
        '--json',
      ],
      dir,
    );
    expect(look.code, look.err).toBe(0);
    const lookTrace = await readTrace(JSON.parse(look.out).traceDir);
    expect(firstUserParts(lookTrace).map((p) => (p.type === 'file' ? p.mime : p.text))).toEqual([
      'What colour is this pixel?\n\n[resource] mcp://fx/fixture://notes.txt (notes)',
      'image/png',
      '[resource mcp://fx/fixture://notes.txt (notes, text/plain)]',
      'text/plain',
    ]);

    const errors = await Promise.all([
      qitos(['run', CALC_AGENT, '-c', cfg, '--mcp-prompt', 'fx/greet'], dir),
      qitos(['run', CALC_AGENT, '-c', cfg, '--mcp-prompt', 'fx/greet', '--task', 'x'], dir),
      qitos(['run', CALC_AGENT, '--task', 'x', '--arg', 'a=b'], dir),
      qitos(['run', CALC_AGENT, '--mcp-prompt', 'fx/greet'], dir),
      qitos(['run', CALC_AGENT, '-c', cfg, '--mcp-prompt', 'greet'], dir),
      qitos(['run', CALC_AGENT, '-c', cfg, '--mcp-prompt', 'fx/greet', '--arg', 'novalue'], dir),
    ]);
    expect(errors.map((e) => e.err.split('\n')[0])).toEqual([
      'qitos: --mcp-prompt: prompt fx/greet needs --arg name=... (who to greet)',
      'qitos: give either --task or --mcp-prompt, not both',
      'qitos: --arg is for the arguments of an --mcp-prompt prompt',
      'qitos: --mcp-prompt needs the MCP server in the config (an mcp: section, see docs/mcp.md)',
      'qitos: --mcp-prompt: --mcp-prompt takes <server>/<prompt>, e.g. docs/summarize; got "greet"',
      "error: option '--arg <key=value>' argument 'novalue' is invalid. expected key=value, got \"novalue\"",
    ]);
    expect(errors.map((e) => e.code)).toEqual([2, 2, 2, 2, 2, 2]);
  }, 180_000);

  it("bench run: a suite's mcp: servers serve every trial, each with its own connection", async () => {
    const suite = join(dir, 'suite');
    mkdirSync(suite);
    writeFileSync(join(suite, 'package.json'), '{"type": "module"}\n');
    writeFileSync(
      join(suite, 'suite.yaml'),
      stringify({
        name: 'mcp-sum',
        tasks: 'tasks.jsonl',
        scorer: 'exact_match',
        agent: './agent.ts',
        mcp: { fx: fixture() },
      }),
    );
    writeFileSync(
      join(suite, 'tasks.jsonl'),
      [1, 2, 3]
        .map((i) => JSON.stringify({ id: `t${i}`, objective: `${i}+${i}`, inputs: { a: i }, expected: String(2 * i) }))
        .join('\n') + '\n',
    );
    // The agent calls the server's add tool, then answers with what it returned.
    writeFileSync(
      join(suite, 'agent.ts'),
      `import { AgentModule, baseState, decide } from ${JSON.stringify(join(ROOT, 'src/index.ts'))};
export default class SumAgent extends AgentModule {
  initState(task) { const s = baseState(task, 4); s.metadata.a = task.inputs.a; return s; }
  decide(state) { return state.step === 1 ? decide.act([{ name: 'fx_add', args: { a: state.metadata.a, b: state.metadata.a } }]) : decide.final(state.metadata.sum); }
  reduce(state, _o, _d, results) { if (results[0]) state.metadata.sum = results[0].output; return state; }
}
`,
    );
    const r = await qitos(['bench', 'run', suite, '--out', 'runs/a', '--concurrency', '2', '--no-progress'], dir);
    expect(r.code, r.err + r.out).toBe(0);
    expect(r.out).toMatch(/^pass rate 100\.0% \(3\/3\)/m);
    const traces = readdirSync(join(dir, 'runs/a/traces'));
    expect(traces).toHaveLength(3);
    for (const t of traces) {
      const trace = await readTrace(join(dir, 'runs/a/traces', t));
      expect(trace.events.find((e) => e.type === 'policy')?.data).toMatchObject({
        event: 'mcp:servers',
        data: { servers: [{ name: 'fx', state: 'connected' }] },
      });
      expect((trace.manifest.config as { mcp: unknown }).mcp).toMatchObject({ fx: { type: 'stdio' } });
    }
  }, 180_000);
});

describe('bin/qitos.js with an MCP server (subprocess)', () => {
  it('exits once the run ends, and the server process is gone', async () => {
    const cfg = writeConfig({ fx: fixture() });
    const model = writeScript([act('fx_pid', {}), final('done')]);
    const r = await promisify(execFile)(
      process.execPath,
      [resolve(ROOT, 'bin/qitos.js'), 'run', CALC_AGENT, '-c', cfg, '--model', model, '--task', 'pid?', '--json'],
      { cwd: dir, env: { PATH: process.env.PATH ?? '' }, timeout: 150_000 },
    );
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ stopReason: 'final', finalResult: 'done' });
    const trace = await readTrace(out.traceDir);
    const pid = Number(trace.steps[0].results[0].output);
    expect(pid).toBeGreaterThan(0);
    expect(alive(pid)).toBe(false);
  }, 180_000);
});
