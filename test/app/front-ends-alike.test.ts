import type { ChildProcess } from 'node:child_process';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';
import { CONFIG_HOME, FIXTURES, qitos, serveProcess, tempDir, type ServeProcess } from '../helpers/cli-harness.js';

// One config through every front end: the engines they build must agree on what the config decides.
const FILE_AGENT = join(FIXTURES, 'agents/file-agent.ts');
const SCRIPT = join(FIXTURES, 'scripts/read-file.json');
const CONFIG = [
  'model:',
  `  id: scripted:${SCRIPT}`,
  'engine:',
  '  maxSteps: 4',
  '  toolTimeoutMs: 20000',
  'workflow:',
  '  maxSteps: 4',
  'env:',
  '  type: host',
  '  root: ws',
  '  sandbox: none',
  'policies:',
  '  doomLoop: true',
  'permission:',
  '  bash:',
  '    "*": allow',
  '    "rm *": deny',
  '  read: allow',
].join('\n');

let dir: string;
let cleanup: () => Promise<void>;
const children: ChildProcess[] = [];
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir('qitos-alike-'));
  await mkdir(join(dir, 'ws'));
  await writeFile(join(dir, 'ws', 'notes.txt'), 'alpha\nbeta\ngamma\n');
  await writeFile(join(dir, 'qitos.yaml'), CONFIG);
});
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  await cleanup();
});

/** What a config decides of an engine, as its trace's manifest records it. */
async function engineOf(traceDir: string) {
  const m = JSON.parse(await readFile(join(traceDir, 'manifest.json'), 'utf8'));
  return { env: m.env, tools: m.tools, policies: m.policies, permission: m.permission, maxSteps: m.budget.maxSteps };
}

/** The one trace folder a folder of traces holds (bench trials, serve runs). */
async function onlyTrace(root: string): Promise<string> {
  const found: string[] = [];
  const walk = async (d: string): Promise<void> => {
    const names = await readdir(d);
    if (names.includes('manifest.json')) found.push(d);
    else for (const n of names) await walk(join(d, n)).catch(() => undefined);
  };
  await walk(root);
  expect(found).toHaveLength(1);
  return found[0]!;
}

/** Asks the served agent `files` to count the lines, stops the server (its traces finalized) and returns the answer. */
async function askAndStop(s: ServeProcess): Promise<string> {
  const answer = await fetch(`${s.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'files', messages: [{ role: 'user', content: 'count the lines' }] }),
  });
  expect(answer.status, s.out()).toBe(200);
  const text = (await answer.json()).choices[0].message.content as string;
  s.child.kill('SIGTERM');
  await s.exit;
  return text;
}

async function debugTrace(traceDir: string): Promise<string> {
  let out = '';
  const io: CliIO = {
    out: (t) => void (out += t),
    err: (t) => void (out += t),
    cwd: dir,
    env: { XDG_CONFIG_HOME: CONFIG_HOME },
    exitCode: 0,
    stdin: Readable.from(['c\n']),
  };
  expect(await main(['debug', traceDir, '-q', '--trace-dir', 'debug-traces'], io), out).toBe(0);
  return onlyTrace(join(dir, 'debug-traces'));
}

describe('one config, every front end', () => {
  it('run, bench run, serve, replay, fork and debug build the same engine: env, tools, policies, permission, budget', async () => {
    const run = await qitos(['run', FILE_AGENT, '-t', 'count the lines', '-c', 'qitos.yaml', '--json'], dir);
    expect(run.code, run.err).toBe(0);
    const recorded = JSON.parse(run.out).traceDir as string;
    const expected = await engineOf(recorded);
    expect(expected).toMatchObject({
      env: { name: 'host', sandbox: 'none' },
      tools: ['read', 'bash'],
      maxSteps: 4,
      permission: expect.arrayContaining([expect.objectContaining({ key: 'bash', pattern: 'rm *', action: 'deny' })]),
    });
    expect(expected.policies).toContain('doom_loop');

    await mkdir(join(dir, 'suite'));
    await writeFile(join(dir, 'suite', 'suite.yaml'), 'name: lines\ntasks: tasks.jsonl\nscorer:\n  type: contains\n');
    await writeFile(join(dir, 'suite', 'tasks.jsonl'), '{"id":"t1","objective":"count the lines","expected":"done"}\n');
    const bench = await qitos(
      ['bench', 'run', 'suite', '-c', 'qitos.yaml', '--agent', FILE_AGENT, '-o', 'bench-out', '--json'],
      dir,
    );
    expect(bench.code, bench.err).toBe(0);
    expect(JSON.parse(bench.out).passRate.passed).toBe(1);
    const benchTrace = await onlyTrace(join(dir, 'bench-out', 'traces'));

    const s = await serveProcess(
      ['--agent', FILE_AGENT, '-c', 'qitos.yaml', '--port', '0', '--name', 'files', '--trace-dir', 'serve-traces'],
      dir,
      { XDG_CONFIG_HOME: CONFIG_HOME },
    );
    children.push(s.child);
    await askAndStop(s);
    const served = await onlyTrace(join(dir, 'serve-traces'));

    const replay = await qitos(['replay', recorded, '--json', '--trace-dir', 'replay-traces'], dir);
    expect(replay.code, replay.err + replay.out).toBe(0);
    const fork = await qitos(['fork', recorded, '--at', '1', '--json', '-q', '--trace-dir', 'fork-traces'], dir);
    expect(fork.code, fork.err + fork.out).toBe(0);
    const debugged = await debugTrace(recorded);

    const engines = {
      bench: await engineOf(benchTrace),
      serve: await engineOf(served),
      replay: await engineOf(await onlyTrace(join(dir, 'replay-traces'))),
      fork: await engineOf(await onlyTrace(join(dir, 'fork-traces'))),
      debug: await engineOf(debugged),
    };
    for (const [front, engine] of Object.entries(engines)) expect({ front, ...engine }).toEqual({ front, ...expected });
  }, 120_000);

  it('a workflow run takes the same env and permission rules (and its workflow: budget)', async () => {
    await writeFile(
      join(dir, 'flow.yaml'),
      [
        'name: lines',
        'nodes:',
        '  - { id: start, kind: start }',
        '  - { id: count, kind: tool, toolName: bash, parameters: { command: "wc -l < notes.txt" }, output: n }',
        '  - { id: end, kind: end, result: "{{n}}" }',
        'edges:',
        '  - { from: start, to: count }',
        '  - { from: count, to: end }',
      ].join('\n'),
    );
    const run = await qitos(['run', FILE_AGENT, '-t', 'count the lines', '-c', 'qitos.yaml', '--json'], dir);
    const agentEngine = await engineOf(JSON.parse(run.out).traceDir);
    const flow = await qitos(['workflow', 'run', 'flow.yaml', '-c', 'qitos.yaml', '--json'], dir);
    expect(flow.code, flow.err + flow.out).toBe(0);
    const result = JSON.parse(flow.out);
    expect(result.output).toMatch(/^3\b/);
    const engine = await engineOf(result.traceDir);
    expect({ env: engine.env, permission: engine.permission, maxSteps: engine.maxSteps }).toEqual({
      env: agentEngine.env,
      permission: agentEngine.permission,
      maxSteps: 4,
    });
  }, 60_000);

  it('qitos serve --workspace gives the served agent a host workspace, as qitos run --workspace does', async () => {
    const s = await serveProcess(
      ['--agent', FILE_AGENT, '-m', `scripted:${SCRIPT}`, '--workspace', 'ws', '--port', '0', '--name', 'files'],
      dir,
      { XDG_CONFIG_HOME: CONFIG_HOME },
    );
    children.push(s.child);
    expect(await askAndStop(s)).toBe('done');
    const m = JSON.parse(await readFile(join(await onlyTrace(join(dir, 'traces')), 'manifest.json'), 'utf8'));
    expect(m.env.name).toBe('host');
    expect(m.config.env).toMatchObject({ type: 'host', root: join(dir, 'ws') });
  }, 60_000);
});
