import { readFile, writeFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CALC_AGENT, CALC_SCRIPT, FIXTURES, qitos, recordCalcRun, tempDir } from '../helpers/cli-harness.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir()));
afterEach(() => cleanup());

describe('qitos run', () => {
  it('runs an agent module with a live view and prints stop reason, final result and trace folder', async () => {
    const r = await qitos(['run', CALC_AGENT, '--task', 'What is 17 * 23?', '--model', `scripted:${CALC_SCRIPT}`], dir);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const lines = r.out.split('\n');
    expect(lines.find((l) => /^\s+1\s+calc\(expr="17 \* 23"\) -> 391\s+140 tok/.test(l))).toBeTruthy();
    expect(lines.find((l) => /^\s+2\s+final: 391/.test(l))).toBeTruthy();
    expect(r.out).toMatch(/^stop: +final/m);
    expect(r.out).toMatch(/^final: +391$/m);
    const trace = /^trace: +(.+)$/m.exec(r.out)![1];
    expect(trace.startsWith(join(dir, 'traces'))).toBe(true);
    const manifest = JSON.parse(await readFile(join(trace, 'manifest.json'), 'utf8'));
    expect(manifest.agent).toMatchObject({ name: 'CalcAgent', module: CALC_AGENT, export: 'default' });
    expect(manifest.config).toEqual({ model: { id: `scripted:${CALC_SCRIPT}` } });
    expect(manifest.summary).toMatchObject({ stopReason: 'final', finalResult: '391', steps: 2 });
  });

  it('records the effective config: flags override the file, the file overrides defaults', async () => {
    await writeFile(
      join(dir, 'qitos.yaml'),
      [
        'model:',
        '  id: scripted:ignored.json',
        '  params: { temperature: 0 }',
        'engine:',
        '  maxSteps: 7',
        '  maxRecoveries: 1',
        'policies:',
        '  doomLoop: { threshold: 4 }',
        'trace:',
        '  dir: out',
        'agent:',
        '  system: From the file.',
      ].join('\n'),
    );
    const r = await qitos(
      [
        'run',
        CALC_AGENT,
        '-t',
        'What is 17 * 23?',
        '-c',
        'qitos.yaml',
        '-m',
        `scripted:${CALC_SCRIPT}`,
        '--max-steps',
        '5',
        '--json',
      ],
      dir,
    );
    expect(r.code, r.err).toBe(0);
    const res = JSON.parse(r.out);
    expect(res.traceDir.startsWith(join(dir, 'out'))).toBe(true);
    const m = JSON.parse(await readFile(join(res.traceDir, 'manifest.json'), 'utf8'));
    expect(m.config).toEqual({
      model: { id: `scripted:${CALC_SCRIPT}`, params: { temperature: 0 } },
      engine: { maxSteps: 5, maxRecoveries: 1 },
      policies: { doomLoop: { threshold: 4 } },
      trace: { dir: 'out' },
      agent: { system: 'From the file.' },
    });
    expect(m.policies).toEqual(['doom_loop']);
    expect(m.model.params).toEqual({ temperature: 0 });
    const steps = (await readFile(join(res.traceDir, 'steps.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(steps[0].model.hashes.system).not.toBe('');
  });

  it('stops at the step budget given by --max-steps', async () => {
    const r = await qitos(
      ['run', CALC_AGENT, '-t', 'x', '-m', `scripted:${CALC_SCRIPT}`, '--max-steps', '1', '--json'],
      dir,
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ stopReason: 'budget_steps', steps: 1, finalResult: null });
  });

  it('exits non-zero with one line when the run fails (model script exhausted)', async () => {
    await writeFile(join(dir, 'one.json'), JSON.stringify(['{"action": {"name": "calc", "args": {"expr": "1 + 1"}}}']));
    const r = await qitos(['run', CALC_AGENT, '-t', 'x', '-m', 'scripted:one.json'], dir);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^stop: +unrecoverable_error/m);
  });

  it('picks the export: --export names it; several subclasses without --export is an error naming them', async () => {
    const two = join(FIXTURES, 'agents/two-agents.ts');
    const bad = await qitos(['run', two, '-t', 'x'], dir);
    expect(bad.code).toBe(2);
    expect(bad.err).toBe(
      `qitos: agent module ${two} exports several AgentModule subclasses (EchoAgent, ShoutAgent); pick one with --export\n`,
    );
    const ok = await qitos(['run', two, '-t', 'hello', '--export', 'ShoutAgent', '--json'], dir);
    expect(ok.code, ok.err).toBe(0);
    expect(JSON.parse(ok.out).finalResult).toBe('HELLO');
    const missing = await qitos(['run', two, '-t', 'x', '--export', 'Nope'], dir);
    expect(missing.err).toMatch(/^qitos: agent module .* has no export "Nope" \(exports: EchoAgent, ShoutAgent\)\n$/);
  });

  it('bad input: missing module, missing task, bad model spec, bad script file, bad flag value: one line each, exit 2', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['run', 'nope/agent.ts', '-t', 'x'], /^qitos: agent module not found: nope\/agent\.ts\n$/],
      [['run', CALC_AGENT], /^qitos: --task is required \(or --mcp-prompt <server>\/<prompt>\)\n$/],
      [['run', CALC_AGENT, '-t', '  '], /^qitos: --task is required and must not be empty\n$/],
      [['run', CALC_AGENT, '-t', 'x', '-m', 'gpt4'], /^qitos: --model: expected "provider:model"/],
      [['run', CALC_AGENT, '-t', 'x', '-m', 'nosuch:model'], /^qitos: unknown model provider "nosuch"/],
      [
        ['run', CALC_AGENT, '-t', 'x', '-m', 'scripted:missing.json'],
        /^qitos: scripted model file not found: missing\.json\n$/,
      ],
      [
        ['run', CALC_AGENT, '-t', 'x', '--max-steps', 'zero'],
        /--max-steps <n>' argument 'zero' is invalid\. expected a positive integer/,
      ],
      [['run', CALC_AGENT, '-t', 'x', '-c', 'none.yaml'], /^qitos: config file not found: none\.yaml\n$/],
    ];
    for (const [args, re] of cases) {
      const r = await qitos(args, dir);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err, args.join(' ')).toMatch(re);
      expect(r.err).not.toMatch(/\n\s+at /); // no stack trace
    }
    expect(await readdir(dir)).not.toContain('traces');
  });

  it('a --trace-dir that cannot be a folder is a one-line error before the run starts (run, replay, fork)', async () => {
    const { traceDir } = await recordCalcRun(dir);
    await writeFile(join(dir, 'file.txt'), 'x');
    for (const args of [
      ['run', CALC_AGENT, '-t', 'x', '-m', `scripted:${CALC_SCRIPT}`, '--trace-dir', 'file.txt'],
      ['replay', traceDir, '--trace-dir', 'file.txt/sub'],
      ['fork', traceDir, '--at', '1', '--trace-dir', 'file.txt'],
    ]) {
      const r = await qitos(args, dir);
      expect(r.code, args[0]).toBe(2);
      expect(r.err, args[0]).toMatch(
        /^qitos: trace folder .*file\.txt(\/sub)? cannot be created: a file is in the way\n$/,
      );
      expect(r.out, args[0]).toBe('');
    }
  });

  it('a provider without its API key is a one-line error naming the variable', async () => {
    const r = await qitos(['run', CALC_AGENT, '-t', 'x', '-m', 'openai:gpt-4o-mini'], dir, {});
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^qitos: no API key for provider "openai": set the environment variable OPENAI_API_KEY/);
  });

  it('--help of every command shows an example', async () => {
    for (const cmd of ['run', 'replay', 'diff', 'view', 'fork', 'runs', 'inspect']) {
      const r = await qitos([cmd, '--help'], dir);
      expect(r.code, cmd).toBe(0);
      expect(r.out, cmd).toMatch(/Example:\n\s+\$ qitos /);
    }
  });

  it('writes a scripted run that recovered from a model error; --json on failure prints an error object', async () => {
    const { traceDir } = await recordCalcRun(dir, [], join(FIXTURES, 'scripts/flaky.json'));
    const m = JSON.parse(await readFile(join(traceDir, 'manifest.json'), 'utf8'));
    expect(m.summary.failures).toEqual([
      { step: 1, kind: 'model_transport', message: 'connection reset', fatal: false },
    ]);
    const r = await qitos(['inspect', join(dir, 'nothing'), '--json'], dir);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.out).error).toMatch(/not a trace/);
  });

  it('--json on a usage error (missing option or argument, bad value) still prints an error object; --help does not', async () => {
    const cases: Array<[string[], string]> = [
      [['run', '--json'], "missing required argument 'agent-module'"],
      [['diff', 'a', '--json'], "missing required argument 'traceB'"],
      [
        ['fork', 'a', '--at', 'x', '--json'],
        `option '--at <step>' argument 'x' is invalid. expected a non-negative integer, got "x"`,
      ],
    ];
    for (const [args, error] of cases) {
      const r = await qitos(args, dir);
      expect(r.code, args.join(' ')).toBe(2);
      expect(JSON.parse(r.out), args.join(' ')).toEqual({ error });
      expect(r.err).toContain(`error: ${error}`);
    }
    const help = await qitos(['runs', '--help', '--json'], dir);
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/^Usage: qitos runs/);
  });
});
