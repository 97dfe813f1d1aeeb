import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONFIG_HOME, FIXTURES, QITOS_BIN, qitos, tempDir } from '../helpers/cli-harness.js';

const FILE_AGENT = join(FIXTURES, 'agents/file-agent.ts');
const SCRIPT = `scripted:${join(FIXTURES, 'scripts/read-file.json')}`;

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
  await mkdir(join(dir, 'ws'));
  await writeFile(join(dir, 'ws', 'notes.txt'), 'alpha\nbeta\ngamma\n');
});
afterEach(() => cleanup());

async function steps(traceDir: string): Promise<any[]> {
  return (await readFile(join(traceDir, 'steps.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

const run = (extra: string[]) =>
  qitos(['run', FILE_AGENT, '-t', 'count the lines', '-m', SCRIPT, '--workspace', 'ws', '--json', ...extra], dir);

describe('qitos run with permission rules', () => {
  it('qitos.yaml permission: read runs, bash asks, and with no terminal the ask is refused by default', async () => {
    await writeFile(join(dir, 'qitos.yaml'), 'permission:\n  read: allow\n  bash:\n    "*": ask\n');
    const r = await run(['--config', 'qitos.yaml']);
    expect(r.code, r.err).toBe(0);
    const s = await steps(JSON.parse(r.out).traceDir);
    expect(s[0].results[0].permission).toMatchObject({
      outcome: 'allow',
      decidedBy: 'rule',
      rule: { key: 'read', pattern: '*' },
    });
    expect(s[1].results[0]).toMatchObject({
      status: 'error',
      permission: { outcome: 'deny', decidedBy: 'default', subjects: ['wc -l < notes.txt'] },
    });
    expect(s[1].results[0].error).toMatch(
      /needed approval \(rule bash "\*": ask\) and was refused: no one could answer here/,
    );
    const m = JSON.parse(await readFile(join(JSON.parse(r.out).traceDir, 'manifest.json'), 'utf8'));
    expect(m.config.permission).toEqual({ read: 'allow', bash: { '*': 'ask' } });
    expect(m.permission).toEqual([
      { key: 'read', pattern: '*', action: 'allow' },
      { key: 'bash', pattern: '*', action: 'ask' },
    ]);
  });

  it('--auto approves what would ask; a deny rule still refuses', async () => {
    const ok = await run(['--set', 'permission={"bash":"ask"}', '--auto']);
    expect(ok.code, ok.err).toBe(0);
    expect((await steps(JSON.parse(ok.out).traceDir))[1].results[0]).toMatchObject({
      status: 'success',
      permission: { decidedBy: 'auto', outcome: 'allow' },
    });
    const no = await run(['--set', 'permission={"bash":{"*":"ask","wc *":"deny"}}', '--auto']);
    expect((await steps(JSON.parse(no.out).traceDir))[1].results[0]).toMatchObject({
      status: 'error',
      permission: { decidedBy: 'rule', outcome: 'deny' },
    });
  });

  it("--permission <file> replaces the config's rules; a bad rule is named with its file and key", async () => {
    await writeFile(join(dir, 'qitos.yaml'), 'permission:\n  "*": deny\n');
    await writeFile(join(dir, 'rules.yaml'), 'read: deny\nbash: allow\n');
    const r = await run(['--config', 'qitos.yaml', '--permission', 'rules.yaml']);
    const s = await steps(JSON.parse(r.out).traceDir);
    expect(s[0].results[0].permission).toMatchObject({ outcome: 'deny', rule: { key: 'read' } });
    expect(s[1].results[0].status).toBe('success');
    await writeFile(join(dir, 'bad.json'), '{"permission": {"bash": {"rm *": "never"}}}');
    const bad = await run(['--permission', 'bad.json']);
    expect(bad.code).not.toBe(0);
    expect(bad.err).toContain('bad.json: permission.bash."rm *": expected "allow", "ask" or "deny", got "never"');
    await writeFile(join(dir, 'qitos.yaml'), 'model:\n  id: openai:x\npermission:\n  bash:\n    "git *": maybe\n');
    const inFile = await run(['--config', 'qitos.yaml']);
    expect(inFile.err).toContain('qitos.yaml:5: permission.bash.git *: expected "allow", "ask" or "deny", got "maybe"');
  });
});

/** Runs `qitos run` under a pseudo-terminal (util-linux `script`), answering each permission prompt with the next line of `answers`. */
function runOnTerminal(args: string[], answers: string[]): Promise<{ code: number | null; output: string }> {
  const command = [process.execPath, QITOS_BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', XDG_CONFIG_HOME: CONFIG_HOME, TERM: 'dumb' },
  });
  let output = '';
  let prompts = 0;
  const pending = [...answers];
  child.stdout.on('data', (d: Buffer) => {
    output += d.toString();
    // Answer each prompt once it shows (a reject asks a second question for its message).
    const seen = (output.match(/\[r\]eject|message for the agent|an empty line rejects/g) ?? []).length;
    while (prompts < seen && pending.length) {
      prompts++;
      child.stdin.write(pending.shift() + '\n');
    }
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })));
}

describe('qitos run on a terminal', () => {
  it('prompts for an ask: reject with a message the model sees', async () => {
    const r = await runOnTerminal(
      [
        'run',
        FILE_AGENT,
        '-t',
        'count',
        '-m',
        SCRIPT,
        '--workspace',
        'ws',
        '--set',
        'permission={"bash":"ask"}',
        '--trace-dir',
        'traces',
      ],
      ['r', 'use read instead'],
    );
    expect(r.output).toContain('? permission (rule bash "*": ask): bash wc -l < notes.txt');
    expect(r.code, r.output).toBe(0);
    const run = (await readFile(join(dir, 'traces', readdirSync(join(dir, 'traces'))[0], 'steps.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(run[1].results[0]).toMatchObject({
      status: 'error',
      permission: { decidedBy: 'user', approver: 'tty', outcome: 'deny', message: 'use read instead' },
    });
    expect(run[1].results[0].error).toContain('Message: use read instead');
  }, 60_000);

  it('prompts for an ask: once runs the call', async () => {
    const r = await runOnTerminal(
      [
        'run',
        FILE_AGENT,
        '-t',
        'count',
        '-m',
        SCRIPT,
        '--workspace',
        'ws',
        '--set',
        'permission={"bash":"ask"}',
        '--trace-dir',
        'traces',
      ],
      ['o'],
    );
    expect(r.code, r.output).toBe(0);
    const run = (await readFile(join(dir, 'traces', readdirSync(join(dir, 'traces'))[0], 'steps.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(run[1].results[0]).toMatchObject({
      status: 'success',
      permission: { decidedBy: 'user', approver: 'tty', outcome: 'allow' },
    });
  }, 60_000);
});

describe('qitos replay of a run with permission decisions', () => {
  it('serves the recorded decisions and matches; under changed rules it reports drift', async () => {
    const rec = await run(['--set', 'permission={"read":"allow","bash":"ask"}', '--auto']);
    expect(rec.code, rec.err).toBe(0);
    const traceDir = JSON.parse(rec.out).traceDir;
    const same = await qitos(['replay', traceDir, '--json'], dir);
    expect(same.code, same.err + same.out).toBe(0);
    expect(JSON.parse(same.out)).toMatchObject({ matched: true, drifts: [] });
    // live tools: the ask happens again and the recorded answer is served, no one is asked
    const live = await qitos(['replay', traceDir, '--live-tools', '--json'], dir);
    expect(live.code, live.err + live.out).toBe(0);
    const liveSteps = await steps(JSON.parse(live.out).replay.traceDir);
    expect(liveSteps[1].results[0]).toMatchObject({
      status: 'success',
      permission: { decidedBy: 'replay', approver: 'replay', outcome: 'allow' },
    });
    // a changed rule set: drift, and the replay stops where a call is judged otherwise (unless --allow-drift)
    await writeFile(join(dir, 'stricter.yaml'), 'read: allow\nbash:\n  "*": ask\n  "wc *": deny\n');
    const changed = await qitos(['replay', traceDir, '--permission', 'stricter.yaml', '--json'], dir);
    expect(changed.code).not.toBe(0);
    const out = JSON.parse(changed.out);
    expect(out.drifts.map((d: { step: number; parts: string[] }) => [d.step, d.parts])).toEqual([
      [0, ['permission']],
      [2, ['permission']],
    ]);
    expect(out.drifts[0].message).toBe('the permission rules differ from the recorded run\'s: + bash "wc *": deny');
    expect(out.drifts[1].message).toBe(
      'replay drift at step 2: call 1 (bash) was ask (rule bash "*") when recorded; the current rules say deny (rule bash "wc *")',
    );
    const allowed = await qitos(['replay', traceDir, '--permission', 'stricter.yaml', '--allow-drift', '--json'], dir);
    expect(JSON.parse(allowed.out)).toMatchObject({ matched: true });
    expect(JSON.parse(allowed.out).drifts).toHaveLength(2);
    const text = await qitos(['replay', traceDir, '--permission', 'stricter.yaml', '--allow-drift'], dir);
    expect(text.out).toContain('drift: the permission rules differ from the recorded run\'s: + bash "wc *": deny');
  }, 60_000);
});

/** A workflow that calculates 6 * 7 in a tool node, then asks for `variable` in an interrupt node, then ends. */
function calculateThenAsk(name: string, prompt: string, variable: string, result: string): string {
  return `name: ${name}
nodes:
  - { id: s, kind: start }
  - { id: plan, kind: tool, toolName: calculate, parameters: { expression: "6 * 7" }, extract: metadata.value }
  - { id: ask, kind: interrupt, prompt: "${prompt}", variable: ${variable} }
  - { id: e, kind: end, result: "${result}" }
edges:
  - { from: s, to: plan }
  - { from: plan, to: ask }
  - { from: ask, to: e }
`;
}

describe('qitos workflow: an ask in a tool node waits like an interrupt; resume answers it', () => {
  const FLOW = calculateThenAsk('approve', 'Approve {{plan}}?', 'approved', '{{plan}} approved={{approved}}');

  it('waits on the asking node; --approve runs it, the interrupt then waits, --var finishes; --reject refuses the call', async () => {
    await writeFile(join(dir, 'approve.yaml'), FLOW);
    await writeFile(join(dir, 'qitos.yaml'), 'permission:\n  calculate: ask\n');
    const first = await qitos(['workflow', 'run', 'approve.yaml', '--config', 'qitos.yaml', '--json'], dir);
    expect(first.code).toBe(1);
    const w = JSON.parse(first.out);
    expect(w).toMatchObject({
      status: 'waiting',
      reason: 'node "plan" needs approval for calculate (no input) (resume with --approve or --reject)',
    });
    const approved = await qitos(
      ['workflow', 'resume', w.traceDir, 'approve.yaml', '--config', 'qitos.yaml', '--approve', '--json'],
      dir,
    );
    const a = JSON.parse(approved.out);
    expect(a).toMatchObject({
      status: 'waiting',
      reason: 'node "ask" asks: Approve 42? (set the variable "approved" and resume)',
    });
    const s = await steps(a.traceDir);
    expect(s[0].results[0].permission).toMatchObject({
      outcome: 'allow',
      decidedBy: 'user',
      approver: 'workflow resume',
    });
    const done = await qitos(
      ['workflow', 'resume', a.traceDir, 'approve.yaml', '--config', 'qitos.yaml', '--var', 'approved=yes', '--json'],
      dir,
    );
    expect(JSON.parse(done.out)).toMatchObject({ status: 'completed', output: '42 approved=yes' });
    const rejected = await qitos(
      ['workflow', 'resume', w.traceDir, 'approve.yaml', '--config', 'qitos.yaml', '--reject', 'too costly', '--json'],
      dir,
    );
    const r = JSON.parse(rejected.out);
    expect(r.status).toBe('failed');
    expect(r.reason).toContain('Message: too costly');
    const both = await qitos(['workflow', 'resume', w.traceDir, 'approve.yaml', '--approve', '--reject'], dir);
    expect(both.err).toContain('give either --approve or --reject, not both');
    const onRun = await qitos(['workflow', 'run', 'approve.yaml', '--approve'], dir);
    expect(onRun.err).toMatch(/unknown option '--approve'|use them with qitos workflow resume/);
  }, 60_000);
});

describe('qitos bench run and permission asks', () => {
  it('no one answers a bench run: asks are refused by default; --auto approves them', async () => {
    const s = join(dir, 'suite');
    await mkdir(s);
    await writeFile(join(s, 'package.json'), '{"type": "module"}\n');
    await writeFile(join(s, 'suite.yaml'), 'name: asks\ntasks: tasks.jsonl\nscorer: exact_match\nagent: ./agent.ts\n');
    await writeFile(
      join(s, 'tasks.jsonl'),
      ['7', '8'].map((n) => JSON.stringify({ id: `t${n}`, objective: n, expected: n })).join('\n') + '\n',
    );
    const src = join(__dirname, '../../src/index.ts');
    await writeFile(
      join(s, 'agent.ts'),
      `import { z } from 'zod';
import { AgentModule, baseState, decide, defineTool } from ${JSON.stringify(src)};
const echo = defineTool({ id: 'echo', description: 'echo', parameters: z.object({ n: z.string() }), execute: ({ n }) => n });
export default class EchoAgent extends AgentModule {
  constructor(o = {}) { super({ ...o, tools: [echo] }); }
  initState(task) { return baseState(task, 3); }
  decide(state) { return state.step === 1 ? decide.call('echo', { n: state.task }) : decide.final(String(state.metadata.last)); }
  reduce(state, _o, _d, results) { return results.length ? { ...state, metadata: { ...state.metadata, last: results[0].status === 'success' ? results[0].output : 'refused' } } : state; }
}
`,
    );
    const refused = await qitos(
      ['bench', 'run', s, '--set', 'permission={"echo":"ask"}', '--no-progress', '--json', '--out', join(dir, 'b1')],
      dir,
    );
    expect(refused.code, refused.err).not.toBe(2);
    const answers = async (out: string) =>
      (await readFile(join(dir, out, 'results.jsonl'), 'utf8'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .map((r) => [r.answer, r.pass])
        .sort();
    expect(await answers('b1')).toEqual([
      ['refused', false],
      ['refused', false],
    ]);
    const auto = await qitos(
      [
        'bench',
        'run',
        s,
        '--set',
        'permission={"echo":"ask"}',
        '--auto',
        '--no-progress',
        '--json',
        '--out',
        join(dir, 'b2'),
      ],
      dir,
    );
    expect(auto.code, auto.err).toBe(0);
    expect(await answers('b2')).toEqual([
      ['7', true],
      ['8', true],
    ]);
  }, 60_000);
});

describe('a workflow interrupt node is an approval request at the terminal; replay serves its answer', () => {
  const FLOW = calculateThenAsk('colour', 'Colour for {{plan}}?', 'colour', '{{plan}} in {{colour}}');

  it('qitos workflow run prompts for the value; the replay matches with no drift, and reports changed rules', async () => {
    await writeFile(join(dir, 'colour.yaml'), FLOW);
    await writeFile(join(dir, 'qitos.yaml'), 'permission:\n  calculate: allow\n');
    const r = await runOnTerminal(['workflow', 'run', 'colour.yaml', '--config', 'qitos.yaml'], ['teal']);
    expect(r.output).toContain('? node "ask" asks: Colour for 42?');
    expect(r.output).toContain('value of "colour" (an empty line rejects)');
    expect(r.output).toContain('result: 42 in teal');
    expect(r.code, r.output).toBe(0);
    const traceDir = join(dir, 'traces', readdirSync(join(dir, 'traces'))[0]);
    const events = (await readFile(join(traceDir, 'events.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events.find((e) => e.type === 'permission' && e.data.record.key === 'interrupt').data.record).toMatchObject({
      outcome: 'allow',
      decidedBy: 'user',
      approver: 'tty',
      message: 'teal',
    });
    const same = await qitos(['replay', traceDir, '--json'], dir);
    expect(same.code, same.err + same.out).toBe(0);
    const out = JSON.parse(same.out);
    expect(out).toMatchObject({ matched: true, drifts: [] });
    const replayed = await steps(out.replay.traceDir);
    expect(JSON.stringify(replayed)).toContain('42 in teal');
    await writeFile(join(dir, 'other.yaml'), 'calculate: deny\n');
    const changed = JSON.parse((await qitos(['replay', traceDir, '--permission', 'other.yaml', '--json'], dir)).out);
    expect(changed.drifts[0]).toMatchObject({ step: 0, parts: ['permission'] });
    expect(changed.drifts[0].message).toContain('+ calculate "*": deny');
  }, 60_000);

  it('with no terminal the interrupt waits as before (no approver)', async () => {
    await writeFile(join(dir, 'colour.yaml'), FLOW);
    const w = await qitos(['workflow', 'run', 'colour.yaml', '--json'], dir);
    expect(JSON.parse(w.out)).toMatchObject({
      status: 'waiting',
      reason: 'node "ask" asks: Colour for 42? (set the variable "colour" and resume)',
    });
  }, 60_000);
});

describe('qitos fork with permission rules', () => {
  it('--permission <file>, --set permission and --auto apply to the fork as to qitos run', async () => {
    const rec = await run(['--set', 'permission={"read":"allow","bash":"ask"}', '--auto']);
    expect(rec.code, rec.err).toBe(0);
    const parent = JSON.parse(rec.out).traceDir;
    await writeFile(join(dir, 'deny.yaml'), 'read: allow\nbash: { "*": allow, "wc *": deny }\n');
    const fork = (extra: string[]) =>
      qitos(['fork', parent, '--at', '0', '--workspace', 'ws', '--json', '--trace-dir', 'forks', ...extra], dir);
    const denied = await fork(['--permission', 'deny.yaml']);
    expect(denied.code, denied.err).toBe(0);
    const d = await steps(JSON.parse(denied.out).traceDir);
    expect(d[1].results[0]).toMatchObject({
      status: 'error',
      permission: { outcome: 'deny', decidedBy: 'rule', rule: { key: 'bash', pattern: 'wc *', action: 'deny' } },
    });
    const manifest = JSON.parse(await readFile(join(JSON.parse(denied.out).traceDir, 'manifest.json'), 'utf8'));
    expect(manifest.permission).toContainEqual({ key: 'bash', pattern: 'wc *', action: 'deny' });
    const set = await fork(['--set', 'permission.bash=deny']);
    expect((await steps(JSON.parse(set.out).traceDir))[1].results[0].permission).toMatchObject({
      outcome: 'deny',
      decidedBy: 'rule',
    });
    // the recorded rules ask: no terminal refuses by default, --auto approves
    const refused = await steps(JSON.parse((await fork([])).out).traceDir);
    expect(refused[1].results[0].permission).toMatchObject({ outcome: 'deny', decidedBy: 'default' });
    const auto = await steps(JSON.parse((await fork(['--auto'])).out).traceDir);
    expect(auto[1].results[0].permission).toMatchObject({ outcome: 'allow', decidedBy: 'auto' });
    const bad = await fork(['--permission', 'missing.yaml']);
    expect(bad.err).toContain('--permission: file not found: missing.yaml');
  }, 90_000);
});
