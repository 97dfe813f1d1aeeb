import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CliIO } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { CALC_AGENT, CALC_SCRIPT, CONFIG_HOME, QITOS_BIN, qitos, tempDir } from '../helpers/cli-harness.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir('qitos-debug-'));
});
afterEach(() => cleanup());

/** `qitos debug <args>` in-process, its commands read from `lines` (a scripted, non-terminal stdin). */
async function debug(args: string[], lines: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIO = {
    out: (t) => void (out += t),
    err: (t) => void (err += t),
    cwd: dir,
    env: { XDG_CONFIG_HOME: CONFIG_HOME },
    exitCode: 0,
    stdin: Readable.from([lines.map((l) => `${l}\n`).join('')]),
  };
  const code = await main(['debug', ...args], io);
  return { code, out, err };
}

const live = ['--task', 'What is 17 * 23?', '--model', `scripted:${CALC_SCRIPT}`, '--trace-dir', 'traces', '-q'];

async function steps(traceDir: string): Promise<any[]> {
  return (await readFile(join(traceDir, 'steps.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

function traceOf(out: string): string {
  const m = /trace:\s+(\S+)/.exec(out);
  if (!m) throw new Error(`no trace in:\n${out}`);
  return m[1];
}

const EDIT = '{"mode":"act","actions":[{"name":"calc","args":{"expr":"2 + 2"}}]}';

describe('qitos debug <agent> with a scripted stdin', () => {
  it('stops before step 1; break on a tool, show, edit the decision; the trace records the edit', async () => {
    const r = await debug(
      [CALC_AGENT, ...live],
      ['break tool calc', 'list', 'continue', 'show decision', 'edit', EDIT, '', 'next', 'show results', 'continue'],
    );
    expect(r.code, r.err + r.out).toBe(0);
    expect(r.out).toContain('stopped at step 1, before observe');
    expect(r.out).toContain('breakpoint 1: tool calc');
    expect(r.out).toContain('stopped at step 1, before act: breakpoint 1 (tool calc)');
    expect(r.out).toContain('1. calc {"expr":"17 * 23"}');
    expect(r.out).toContain('decision (edited):\n  1. calc {"expr":"2 + 2"}');
    expect(r.out).toContain('stopped at step 2, before observe: next');
    const s = await steps(traceOf(r.out));
    expect(s[0].decision.actions[0].args).toEqual({ expr: '2 + 2' });
    expect(s[0].edited.original.actions[0].args).toEqual({ expr: '17 * 23' });
    expect(s[0].results[0]).toMatchObject({ status: 'success', output: '4' });
  });

  it('step walks the phases; until runs to a step; show prints state, observation and messages', async () => {
    const r = await debug(
      [CALC_AGENT, ...live],
      ['step', 'show messages', 'step', 'step', 'show state', 'until 2 check_stop', 'show observation', 'c'],
    );
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('stopped at step 1, before decide: step');
    expect(r.out).toMatch(/\[0\] system: You are a careful calculator/);
    expect(r.out).toContain('stopped at step 1, before act: step');
    expect(r.out).toContain('stopped at step 1, before reduce: step');
    expect(r.out).toMatch(/"task": "What is 17 \* 23\?"[\s\S]*"messages": "\(2 messages: show messages\)"/);
    expect(r.out).toContain('stopped at step 2, before check_stop: until step 2 check_stop');
    expect(r.out).toContain('final:  391');
  });

  it('skip: the call does not run and the model sees it was skipped', async () => {
    const r = await debug([CALC_AGENT, ...live, '-b', 'act'], ['c', 'skip 1', 'c', 'c']);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('call 1 (calc) will not run');
    const s = await steps(traceOf(r.out));
    expect(s[0].results[0]).toMatchObject({
      status: 'skipped',
      error: expect.stringMatching(/skipped at a breakpoint/),
    });
  });

  it('stop ends the run interrupted (exit 130) with a finalized trace', async () => {
    const r = await debug([CALC_AGENT, ...live], ['stop']);
    expect(r.code).toBe(130);
    expect(r.out).toContain('stop:   interrupted');
    const m = JSON.parse(await readFile(join(traceOf(r.out), 'manifest.json'), 'utf8'));
    expect(m.status).toBe('interrupted');
  });

  it('bad commands are named and the prompt stays; the end of the input lets the run finish', async () => {
    const r = await debug(
      [CALC_AGENT, ...live],
      [
        'break nowhere',
        'break expr state.step >',
        'edit',
        'skip 1',
        'frobnicate',
        'b act',
        'c',
        'skip 3',
        'edit',
        '{"mode":"act","actions":[]}',
        '',
        'edit',
        'not json',
        '',
      ],
    );
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('error: break: "nowhere" is not a breakpoint');
    expect(r.out).toContain('error: break expr: unexpected end of the expression');
    expect(r.out).toContain('error: edit: a decision is edited at a stop before act');
    expect(r.out).toContain('error: skip: tool calls are skipped at a stop before act');
    expect(r.out).toContain('error: unknown command "frobnicate"');
    expect(r.out).toContain('error: skip: give a call number from 1 to 1');
    expect(r.out).toContain('error: edit: not a decision: actions: ');
    expect(r.out).toContain('error: edit: not JSON: ');
    expect(r.out).toContain('(end of input: the run goes on without stopping)');
    expect(r.out).toContain('final:  391');
  });

  it('an expr breakpoint over the state', async () => {
    const r = await debug([CALC_AGENT, ...live, '-b', 'expr step == 2 && len(state.messages) >= 2'], ['c', 'c']);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(
      'stopped at step 2, before observe: breakpoint 1 (expr step == 2 && len(state.messages) >= 2)',
    );
  });

  it('a live run needs --task; a bad --break is a one-line error', async () => {
    expect((await debug([CALC_AGENT], [])).err).toContain('--task is required to debug a live run');
    const bad = await debug([CALC_AGENT, ...live, '-b', 'step zero'], []);
    expect(bad.code).not.toBe(0);
    expect(bad.err).toContain('--break: break step: "zero" is not a step number');
  });
});

describe('an edited run: debug, replay and fork', () => {
  it('replay serves the edit and matches; debug <trace> stops at it; fork --at goes on from the edited state', async () => {
    const rec = await debug([CALC_AGENT, ...live, '-b', 'tool calc'], ['c', 'edit', EDIT, '', 'c']);
    const trace = traceOf(rec.out);

    const replay = await qitos(['replay', trace, '--json'], dir);
    expect(replay.code, replay.err).toBe(0);
    const outcome = JSON.parse(replay.out);
    expect(outcome.matched).toBe(true);
    const replayed = await steps(outcome.replay.traceDir);
    expect(replayed[0].edited.original.actions[0].args).toEqual({ expr: '17 * 23' });
    expect(replayed[0].results[0].output).toBe('4');

    const again = await debug(
      [trace, '-q'],
      ['until 1 act', 'show decision', 'show results', 'next', 'show results', 'c'],
    );
    expect(again.code, again.err).toBe(0);
    expect(again.out).toContain('debugging a replay of');
    expect(again.out).toMatch(/stopped at step 1, before act: breakpoint replay-edit-1 \(step 1 act\)/);
    expect(again.out).toContain('decision (edited):\n  1. calc {"expr":"2 + 2"}');

    const fork = await qitos(['fork', trace, '--at', '1', '--json', '-m', `scripted:${CALC_SCRIPT}`], dir);
    expect(fork.code, fork.err).toBe(0);
    const forked = await steps(JSON.parse(fork.out).traceDir);
    expect(forked[0].step).toBe(2);
    // The fork starts from the state after the edited step: its history holds the edited call's result.
    const m = JSON.parse(await readFile(join(JSON.parse(fork.out).traceDir, 'manifest.json'), 'utf8'));
    expect(JSON.stringify(m.initialState.messages)).toContain('"output":"4"');
  });
});

describe('qitos debug <trace> of a workflow run', () => {
  it('rebuilds the recorded workflow under the debugger: a breakpoint on its fork stops it, and it ends as recorded', async () => {
    const flow = join(__dirname, '../../examples/workflows/research-summarise.yaml');
    const replies = join(__dirname, '../../examples/workflows/research-summarise.replies.json');
    const rec = await qitos(['workflow', 'run', flow, '--model', `scripted:${replies}`, '--json'], dir);
    expect(rec.code, rec.err).toBe(0);
    const recorded = JSON.parse(rec.out);
    const r = await debug([recorded.traceDir, '-b', 'tool _workflow_fork', '-q'], ['c', 'show decision', 'c']);
    expect(r.code, r.err + r.out).toBe(0);
    expect(r.out).toContain(`debugging a replay of workflow run ${recorded.runId}`);
    expect(r.out).toMatch(/stopped at step \d+, before act: breakpoint 1 \(tool _workflow_fork\)/);
    expect(r.out).toContain('1. _workflow_fork {"fork":"sides"}');
    expect(r.out).toContain(`final:  ${recorded.output}`);
    const m = JSON.parse(await readFile(join(traceOf(r.out), 'manifest.json'), 'utf8'));
    expect(m.parent).toMatchObject({ runId: recorded.runId, kind: 'replay' });
  });
});

/** `qitos debug` under a pseudo-terminal (util-linux `script`): each command is typed once the prompt shows. */
function debugOnTerminal(args: string[], commands: string[]): Promise<{ code: number | null; output: string }> {
  const command = [process.execPath, QITOS_BIN, 'debug', ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', XDG_CONFIG_HOME: CONFIG_HOME, TERM: 'dumb' },
  });
  let output = '';
  let typed = 0;
  const pending = [...commands];
  child.stdout.on('data', (d: Buffer) => {
    output += d.toString();
    const prompts = (output.match(/\(qdb\) /g) ?? []).length;
    while (typed < prompts && pending.length) {
      typed++;
      child.stdin.write(pending.shift() + '\n');
    }
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })));
}

describe('qitos debug on a terminal', () => {
  it('prompts, takes commands as typed, and stops the run', async () => {
    const r = await debugOnTerminal([CALC_AGENT, ...live], ['break tool calc', 'continue', 'show decision', 'stop']);
    expect(r.output).toContain('stopped at step 1, before observe');
    expect(r.output).toContain('stopped at step 1, before act: breakpoint 1 (tool calc)');
    expect(r.output).toContain('1. calc {"expr":"17 * 23"}');
    expect(r.output).toContain('stop:   interrupted');
    expect(r.code).toBe(130);
    const runs = readdirSync(join(dir, 'traces'));
    expect(runs).toHaveLength(1);
  }, 60_000);
});
