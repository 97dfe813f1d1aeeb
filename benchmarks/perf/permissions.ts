/**
 * Permission evaluation speed (seed 002 NFR-03: under 5 ms; our target: well under a millisecond). Measures, per call:
 * the rules alone (`PermissionRules.evaluate` on a prepared subject), the gate's whole decision before a tool runs
 * (`PermissionGate.judge`: the tool's main input, the command line read with the bash grammar into the commands it
 * runs or the path placed against the workspace and where it lands on disk, the external-directory check, the rules),
 * and one tool call through the ActionExecutor with and without rules (what a run pays per call). Rule sets: a
 * repository's safe default (13 rules) and a large one (423 rules).
 * Run: npm run bench:permissions [-- --calls 200000] ; with -- --write, records the figures in docs/performance.md
 * `## Permissions`.
 */
import { availableParallelism, loadavg } from 'node:os';
import { z } from 'zod';
import {
  PermissionRules,
  ToolRegistry,
  decide,
  defineTool,
  type ActContext,
  type Action,
  type PermissionConfig,
} from '../../src/index.js';
import { ActionExecutor } from '../../src/engine/action-executor.js';
import { PermissionGate } from '../../src/engine/permission-gate.js';
import { landingPath } from '../../src/envs/path-jail.js';
import { shellCommands } from '../../src/envs/shell/shell-command-reader.js';
import { bashTool, readTool } from '../../src/kit/tools/index.js';
import { writePerformanceSection } from './performance-doc.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const CALLS = arg('calls', 200_000);
/** The gate's judge reads a command line with the bash grammar and resolves paths on disk: fewer calls suffice. */
const JUDGE_CALLS = Math.max(1_000, Math.floor(CALLS / 20));

/** The docs' "safe default for a repository". */
const REPO: PermissionConfig = {
  '*': 'ask',
  read: 'allow',
  glob: 'allow',
  grep: 'allow',
  edit: { '*': 'deny', 'src/*': 'allow', 'test/*': 'allow' },
  bash: { '*': 'ask', 'git *': 'allow', 'grep *': 'allow', 'ls *': 'allow', 'rm *': 'deny' },
  external_directory: 'deny',
};

/**
 * 423 rules: 40 tools x 10 patterns, 10 wildcard keys, then the repository set (so the hot keys are matched
 * last-to-first through all of them).
 */
function large(): PermissionConfig {
  const out: Record<string, Record<string, 'allow' | 'ask' | 'deny'> | 'allow' | 'ask' | 'deny'> = {};
  for (let t = 0; t < 40; t++)
    out[`tool_${t}`] = Object.fromEntries(
      Array.from({ length: 10 }, (_, p) => [`cmd${p} --flag-${t} *`, (['allow', 'ask', 'deny'] as const)[(t + p) % 3]]),
    );
  for (let p = 0; p < 10; p++) (out as Record<string, unknown>)[`ba?h_${p}*`] = 'ask';
  return { ...out, ...(REPO as Record<string, never>) };
}

function time(label: string, n: number, fn: (i: number) => unknown): { label: string; ns: number } {
  for (let i = 0; i < Math.min(n, 20_000); i++) fn(i); // warm-up
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn(i);
  const ns = Number(process.hrtime.bigint() - t0) / n;
  console.log(`${label.padEnd(58)} ${(ns / 1000).toFixed(3)} µs`);
  return { label, ns };
}

async function timeAsync(label: string, n: number, fn: (i: number) => Promise<unknown>): Promise<{ ns: number }> {
  for (let i = 0; i < Math.min(n, 2_000); i++) await fn(i); // warm-up (the first call loads the grammar)
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await fn(i);
  const ns = Number(process.hrtime.bigint() - t0) / n;
  console.log(`${label.padEnd(58)} ${(ns / 1000).toFixed(3)} µs`);
  return { ns };
}

async function main(): Promise<void> {
  const rows: Array<{ set: string; rules: number; evaluate: number; judgeBash: number; judgePath: number }> = [];
  const bash = bashTool();
  const read = readTool();
  const commands = ['git status --short', 'ls -la src && grep -rn TODO src | wc -l', 'rm -rf build; npm test'];
  const paths = ['src/engine/engine.ts', '../outside/secret.txt', 'README.md'];
  const root = process.cwd();
  const readCommands = shellCommands();
  for (const [name, config] of [
    ['repository default', REPO],
    ['large', large()],
  ] as const) {
    const rules = new PermissionRules(config, { home: '/home/user' });
    const gate = new PermissionGate({
      runId: 'bench',
      rules,
      approver: undefined,
      timeoutMs: 1000,
      root: () => root,
      signal: new AbortController().signal,
      step: () => 1,
      emit: () => undefined,
      tool: () => undefined,
      commands: readCommands,
      realPath: (p) => landingPath(root, p),
    });
    const subject = [{ text: 'git status --short' }];
    const e = time(`${name} (${rules.rules.length} rules): evaluate`, CALLS, () => rules.evaluate('bash', subject));
    const jb = await timeAsync(`${name}: judge a bash call (bash grammar + rules)`, JUDGE_CALLS, (i) =>
      gate.judge({ id: 'c', name: 'bash', args: {} }, bash, { command: commands[i % 3] }),
    );
    const jp = await timeAsync(`${name}: judge a read call (path, where it lands, external check)`, JUDGE_CALLS, (i) =>
      gate.judge({ id: 'c', name: 'read', args: {} }, read, { path: paths[i % 3] }),
    );
    rows.push({ set: name, rules: rules.rules.length, evaluate: e.ns, judgeBash: jb.ns, judgePath: jp.ns });
  }

  // One tool call through the executor, with and without rules (the allow path: no one is asked).
  const noop = defineTool({
    id: 'noop',
    description: '',
    parameters: z.object({ n: z.number() }),
    permission: (a) => ({ kind: 'text', value: String(a.n) }),
    execute: () => 'ok',
  });
  const executor = new ActionExecutor(new ToolRegistry([noop]));
  const gate = new PermissionGate({
    runId: 'bench',
    rules: new PermissionRules(REPO),
    approver: undefined,
    timeoutMs: 1000,
    root: () => undefined,
    signal: new AbortController().signal,
    step: () => 1,
    emit: () => undefined,
    tool: () => undefined,
  });
  const base: ActContext = {
    runId: 'bench',
    traceDir: null,
    step: 1,
    env: { name: 'none', ops: (() => undefined) as never },
    state: {},
    signal: new AbortController().signal,
    services: {},
    depth: 0,
    callModel: () => Promise.reject(new Error('none')),
    childLink: () => ({ runId: 'bench', path: null, kind: 'subtask' }),
    onState: () => undefined,
  };
  const withRules: ActContext = { ...base, ...gate.actHooks() };
  const actions: Action[] = Array.from({ length: 64 }, (_, i) => ({
    ...decide.call('noop', { n: i }).actions[0],
    id: `c${i}`,
  }));
  const N = Math.max(1, Math.floor(CALLS / 10));
  const measureCall = async (ctx: ActContext) => {
    for (let i = 0; i < 5_000; i++) await executor.run([actions[i % 64]], ctx);
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < N; i++) await executor.run([actions[i % 64]], ctx);
    return Number(process.hrtime.bigint() - t0) / N;
  };
  // Interleaved rounds, so a busy neighbour on the shared machine weighs on both alike.
  const plain: number[] = [];
  const ruled: number[] = [];
  for (let r = 0; r < 3; r++) {
    plain.push(await measureCall(base));
    ruled.push(await measureCall(withRules));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const callPlain = median(plain);
  const callRuled = median(ruled);
  console.log(
    `tool call through the executor, no rules: ${(callPlain / 1000).toFixed(2)} µs; with the ` +
      `repository rules: ${(callRuled / 1000).toFixed(2)} µs`,
  );

  const us = (ns: number) => (ns / 1000).toFixed(2);
  const section = [
    '## Permissions',
    '',
    `\`npm run bench:permissions\` (${CALLS.toLocaleString('en-US')} calls each, ` +
      `Node ${process.version}, ${new Date().toISOString().slice(0, 10)}, load average ${loadavg()[0].toFixed(1)} on ` +
      `${availableParallelism()} cores: figures grow with the load). Seed 002 NFR-03 asks ` +
      `for under 5 ms per evaluation.`,
    '',
    '| rule set | rules | evaluate (µs) | judge a bash call (µs) | judge a read call (µs) |',
    '|---|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.set} | ${r.rules} | ${us(r.evaluate)} | ${us(r.judgeBash)} | ${us(r.judgePath)} |`),
    '',
    `A tool call through the ActionExecutor (a no-op tool, allowed by rule) ` +
      `takes ${us(callRuled)} µs with the repository rules and ${us(callPlain)} µs without rules ` +
      `(median of 3 interleaved rounds): the gate adds ${us(Math.max(0, callRuled - callPlain))} ` +
      `µs per call.`,
    '"judge" is everything the gate does before a tool runs when no one is asked: the tool\'s ' +
      'main input, a command line read with the bash grammar (tree-sitter-bash in WebAssembly) into ' +
      'every command it runs, or a path placed against the workspace and followed on disk to where it ' +
      'lands, the external-directory check and the rules (last match wins, compiled to regular ' +
      `expressions once per run, the rules of a key cached); ${JUDGE_CALLS.toLocaleString('en-US')} calls each. ` +
      'Loading the grammar (once per process, on the first command judged) takes a few tens of milliseconds.',
    '',
  ].join('\n');
  writePerformanceSection(section);
}

await main();
