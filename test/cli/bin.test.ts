import { readdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CALC_AGENT, CALC_SCRIPT, QITOS_BIN as BIN, qitosProcess, tempDir } from '../helpers/cli-harness.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir('qitos-bin-')));
afterEach(() => cleanup());

describe('bin/qitos.js (subprocess)', () => {
  it('loads TypeScript at run time: run a .ts agent, then replay it', async () => {
    const r = await qitosProcess(
      ['run', CALC_AGENT, '--task', 'What is 17 * 23?', '--model', `scripted:${CALC_SCRIPT}`],
      dir,
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^final: +391$/m);
    const [runId] = await readdir(join(dir, 'traces'));
    const rp = await qitosProcess(['replay', join('traces', runId), '--json'], dir);
    expect(rp.code).toBe(0);
    expect(JSON.parse(rp.stdout).matched).toBe(true);
  });

  it('loads agent modules outside an ESM package (no package.json): .ts with a default export, .js with a named one', async () => {
    const src = resolve(__dirname, '../../src/index.ts');
    await writeFile(
      join(dir, 'shout.ts'),
      `import { AgentModule, baseState, type State, type Task } from '${src}';\nexport default ` +
        `class Shout extends AgentModule<State> {\n  initState(t: Task): State { return ` +
        `baseState(t, 2); }\n  override decide(s: State) { return { mode: 'final' as const, ` +
        `answer: s.task.toUpperCase() }; }\n}\n`,
    );
    await writeFile(
      join(dir, 'echo.js'),
      `import { AgentModule, baseState } from '${src}';\nexport class Echo extends AgentModule ` +
        `{\n  initState(t) { return baseState(t, 2); }\n  decide(s) { return { mode: 'final', ` +
        `answer: 'echo ' + s.task }; }\n}\n`,
    );
    const ts = await qitosProcess(['run', 'shout.ts', '-t', 'hi', '--json'], dir);
    expect(ts.stderr).toBe('');
    expect(JSON.parse(ts.stdout)).toMatchObject({ stopReason: 'final', finalResult: 'HI' });
    const js = await qitosProcess(['run', 'echo.js', '-t', 'hi', '--json'], dir);
    expect(js.stderr).toBe('');
    expect(JSON.parse(js.stdout)).toMatchObject({ stopReason: 'final', finalResult: 'echo hi' });
  });

  it('user errors: one line on stderr, exit 2 (bad input), no stack trace', async () => {
    const r = await qitosProcess(['inspect', 'no-such-trace'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`qitos: not a trace: ${join(dir, 'no-such-trace')} is not a folder\n`);
    const u = await qitosProcess(['frobnicate'], dir);
    expect(u.code).toBe(2);
    expect(u.stderr).toMatch(/^error: unknown command 'frobnicate'/);
  });

  it('--help exits 0 and lists the commands', async () => {
    const r = await qitosProcess(['--help'], dir);
    expect(r.code).toBe(0);
    for (const c of ['run', 'replay', 'diff', 'view', 'fork', 'runs', 'inspect'])
      expect(r.stdout).toMatch(new RegExp(`^  ${c} `, 'm'));
  });
});

describe('bin/qitos.js output', () => {
  it('stops quietly when its stdout is closed early (qitos run … | head -1)', async () => {
    const { spawn } = await import('node:child_process');
    // A long run: the live view keeps writing one line per step after the reader has gone.
    const call = { text: '{"action": {"name": "calc", "args": {"expr": "1 + 1"}}}' };
    await writeFile(
      join(dir, 'long.json'),
      JSON.stringify([...Array.from({ length: 400 }, () => call), { text: '{"final_answer": "2"}' }]),
    );
    await writeFile(join(dir, 'q.yaml'), 'agent:\n  maxSteps: 500\n');
    const args = [BIN, 'run', CALC_AGENT, '-t', 'add', '-m', `scripted:${join(dir, 'long.json')}`, '-c', 'q.yaml'];
    const child = spawn(process.execPath, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.stdout.once('data', () => child.stdout.destroy()); // read one chunk, then hang up like `head -1`
    const code = await new Promise<number | null>((res) => child.on('close', (c) => res(c)));
    expect(err).not.toMatch(/EPIPE|Unhandled/);
    expect(code).toBe(0);
  });
});
