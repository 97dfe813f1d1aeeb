import { existsSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import cliProgress from 'cli-progress';
import type { Model, State } from '../../core/index.js';
import type { AgentModule } from '../../engine/agent-module.js';
import {
  compareRuns,
  judgeRuns,
  loadSuite,
  mergeRuns,
  pairwiseJudge,
  parseRateLimit,
  parseShard,
  renderComparison,
  renderPairwise,
  runSuite,
  shardFromEnv,
  toBenchAgent,
  type AgentFactory,
  type BenchAgent,
  type BenchProgress,
  type RunSuiteOptions,
  type Shard,
  type Suite,
  type Summary,
} from '../../bench/index.js';
import { agentFactoryFromModule } from '../../bench/bench-agent.js';
import { formatShard } from '../../bench/shard.js';
import { importAgentModule, loadAgent } from '../../app/agent-loader.js';
import { importUserModule } from '../../app/user-module.js';
import { AppError } from '../../app/app-error.js';
import { effectiveConfig } from '../../app/effective-config.js';
import { commandTelemetry } from '../../app/telemetry-setup.js';
import { EXIT_FAILED, EXIT_INTERRUPTED } from '../../app/exit-codes.js';
import type { CliIO } from '../io.js';
import { resolveModel } from '../../app/model-resolver.js';
import { buildAgent, buildPolicies, configBudget } from '../../app/build-engine.js';
import { loadTraceKey } from '../../trace/trace-key.js';
import { connectConfiguredMcp, recordableConfig } from '../../app/mcp-setup.js';
import type { QitosConfig } from '../../app/config-schema.js';
import type {
  BenchCompareFlags,
  BenchMergeFlags,
  BenchRunFlags,
  BenchSettingsFlags,
  TauBenchFlags,
} from './command-flags.js';
import { autoApprove } from '../../engine/permission-gate.js';
import { moduleSha256 } from '../../app/module-hash.js';
import { runSettings } from '../../app/run-settings.js';
import { watchStopSignals } from '../../engine/signal-watcher.js';
import { loadTauBench, prepareTauBenchRun, tauSuiteRef } from '../../app/tau-bench-run.js';

/** What `qitos bench run` does (loaded when the command runs, so `qitos --help` stays fast). */
export async function benchRunAction(io: CliIO, suitePath: string, flags: BenchRunFlags): Promise<void> {
  const shard = flags.shard !== undefined ? userErrors(() => pickShard(flags.shard!, io)) : undefined;
  const rateLimit = flags.rateLimit !== undefined ? userErrors(() => parseRateLimit(flags.rateLimit!)) : undefined;
  if (flags.resume && !flags.out) throw new AppError('--resume needs --out <dir>: the folder of the run to continue');
  if (flags.forceResume && !flags.resume) throw new AppError('--force-resume goes with --resume');
  if (flags.trials !== undefined && flags.epochs !== undefined && flags.trials !== flags.epochs)
    throw new AppError('--trials is another name for --epochs: give one of them');
  const { suite, prepare } = await openBenchSuite(io, suitePath, flags);
  const prepared = await prepare(flags);
  const out = resolve(
    io.cwd,
    flags.out ??
      join(
        '.bench-out',
        `${suite.name}-${new Date().toISOString().replace(/[-:]/g, '').replace(/\..+/, '').replace('T', '-')}`,
      ),
  );
  const controller = new AbortController();
  // SIGINT, SIGTERM or SIGHUP: trials in flight abort (their engines kill their commands); a second signal exits at once.
  const unwatch = watchStopSignals(() => {
    io.err(
      '\ninterrupted: in-flight trials are aborted and not recorded; finished ones are kept. Continue with --resume.\n',
    );
    controller.abort();
  });
  // Where the trials' spans go: the config file's telemetry: section, --otel, --set and the OTEL_* variables.
  const telemetry = await commandTelemetry(
    io,
    await effectiveConfig(
      {},
      { config: flags.config, set: flags.set, otel: flags.otel, otelContent: flags.otelContent },
      io.cwd,
    ),
  );
  const progress = progressReporter(io, flags, suite.name);
  let summary: Summary;
  try {
    const result = await userErrorsAsync(() =>
      runSuite({
        ...prepared,
        ...(telemetry ? { tap: telemetry } : {}),
        concurrency: flags.concurrency,
        epochs: flags.epochs ?? flags.trials,
        shard,
        outDir: out,
        resume: flags.resume,
        forceResume: flags.forceResume,
        signal: controller.signal,
        rateLimit,
        onProgress: progress.update,
      }),
    );
    summary = result.summary;
  } finally {
    unwatch();
    progress.stop();
    await telemetry?.shutdown();
  }
  io.out(flags.json ? JSON.stringify(summary, null, 2) + '\n' : summaryText(summary, relative(io.cwd, out) || '.'));
  const errors = summary.errors.run + summary.errors.setup + summary.errors.scorer;
  io.exitCode = summary.interrupted
    ? EXIT_INTERRUPTED
    : summary.trials > 0 && errors === summary.trials
      ? EXIT_FAILED
      : 0;
}

/** Loads a suite for `bench run` / `bench sweep` (a judge model a scorer names is built like `--model`). */
export async function loadBenchSuite(io: CliIO, suitePath: string): Promise<Suite> {
  const judgeModel = (spec: string) => resolveModel({ id: spec }, io.cwd, io.env);
  return userErrorsAsync(() =>
    loadSuite(resolve(io.cwd, suitePath), { createModel: judgeModel, importModule: importUserModule }),
  );
}

/**
 * The suite of `bench run` and `bench sweep` (a suite folder, file or module, or a built-in tau-bench suite,
 * `tau-bench/<domain>`, loaded once), and how one run of it is prepared from settings flags (a sweep prepares one per
 * cell). tau-bench flags on another suite are refused.
 */
export async function openBenchSuite(
  io: CliIO,
  suitePath: string,
  flags: BenchSettingsFlags & TauBenchFlags,
): Promise<{ suite: Suite; prepare: (flags: BenchSettingsFlags & TauBenchFlags) => Promise<PreparedBenchRun> }> {
  const tau = tauSuiteRef(suitePath, io.cwd);
  const tauOnly = (['split', 'taskIds', 'userModel', 'userStrategy', 'dataDir'] as const).filter(
    (k) => flags[k] !== undefined,
  );
  if (!tau && tauOnly.length)
    throw new AppError(
      `--${tauOnly[0].replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} applies to tau-bench ` +
        `suites only (qitos bench run tau-bench/airline | tau-bench/retail)`,
    );
  if (!tau) {
    const suite = await loadBenchSuite(io, suitePath);
    return { suite, prepare: (f) => prepareBenchRun(io, suite, f) };
  }
  const loaded = await loadTauBench(tau, flags, io.cwd);
  return { suite: loaded.suite, prepare: (f) => prepareTauBenchRun(io, loaded, f) };
}

/**
 * The runSuite options a set of settings flags gives (agent, model, budgets, policies, recorded settings), without
 * where and how it runs.
 */
export type PreparedBenchRun = Omit<RunSuiteOptions, 'outDir'>;

/**
 * Builds the agent factory, model and recorded settings of one bench run from its flags: the effective config
 * (`--config` <- flags <- `--set`), the suite's default model and MCP servers, the agent module and its sha-256.
 */
export async function prepareBenchRun(io: CliIO, suite: Suite, flags: BenchSettingsFlags): Promise<PreparedBenchRun> {
  let config = await effectiveConfig(
    {},
    { config: flags.config, model: flags.model, maxSteps: flags.maxSteps, set: flags.set },
    io.cwd,
  );
  // The suite's default model applies when neither --model nor the config names one.
  if (!config.model && suite.model) config = await effectiveConfig(config, { model: suite.model }, io.cwd);

  const agentPath = flags.agent ? resolve(io.cwd, flags.agent) : suite.agent;
  if (!agentPath) throw new AppError(`suite "${suite.name}" names no agent: pass --agent <module>`);
  if (!existsSync(agentPath))
    throw new AppError(`agent module not found: ${flags.agent ?? relative(io.cwd, agentPath)}`);
  const agent = await agentFactory(agentPath, flags.export, config, io);
  // The suite's MCP servers, with the config's of the same name winning; each trial connects its own.
  const mcp = suite.mcp || config.mcp ? { ...suite.mcp, ...config.mcp } : undefined;
  if (mcp) config = { ...config, mcp };
  const warned = new Set<string>();

  // A scripted model keeps its place in its script: each trial gets its own. Provider models are shared.
  const modelId = config.model?.id;
  const shared =
    modelId && !modelId.startsWith('scripted:') ? await resolveModel(config.model!, io.cwd, io.env) : undefined;
  const modelFor = async (): Promise<Model | undefined> =>
    modelId?.startsWith('scripted:') ? resolveModel(config.model!, io.cwd, io.env) : shared;
  const e = config.engine ?? {};
  return {
    suite,
    agentFactory: async (ctx) =>
      withTrialMcp(toBenchAgent(await agent.factory({ ...ctx, model: await modelFor() })), mcp, io, warned),
    ...(shared ? { model: shared } : {}),
    budget: configBudget(config),
    engine: {
      ...(e.maxRecoveries !== undefined ? { maxRecoveries: e.maxRecoveries } : {}),
      tools: { parallel: e.parallelTools, concurrency: e.toolConcurrency, timeoutMs: e.toolTimeoutMs },
      // No one answers a bench run's asks: they are refused (the documented default) unless --auto approves them.
      ...(config.permission !== undefined ? { permission: config.permission } : {}),
      ...(flags.auto ? { onApproval: autoApprove } : {}),
      ...(e.approvalTimeoutMs !== undefined ? { approvalTimeoutMs: e.approvalTimeoutMs } : {}),
    },
    agentLabel: agent.module,
    ...(agent.export ? { agentExport: agent.export } : {}),
    agentSha256: agent.sha256,
    modelLabel: modelId,
    // What resume compares and run.json records: the agent module (and its content), the model, every setting, and
    // for an agent class the parser, tools and policies it is built with (a change in a module it imports shows there).
    settings: {
      ...runSettings({ module: agent.module, export: agent.export, sha256: agent.sha256 }, config),
      ...(await agentComponents(agent, modelFor)),
    },
    // Recorded in every trace so `qitos replay` / `fork` can rebuild a trial: the config with the suite's budget.
    traceConfig: recordableConfig({ ...config, engine: { ...suite.budget, ...e } }),
    streamDeltas: config.trace?.streamDeltas ?? false,
    signingKey: await loadTraceKey(io.env, { create: true }),
  };
}

/**
 * Gives one trial its own connection to the MCP servers: their tools join the agent's, the trial's trace records
 * their events, and the servers close when the trial's run ends. A server that fails is reported once per bench run.
 */
async function withTrialMcp(
  setup: BenchAgent,
  servers: QitosConfig['mcp'],
  io: CliIO,
  warned: Set<string>,
): Promise<BenchAgent> {
  const mcp = await connectConfiguredMcp(servers, io, { quiet: true });
  if (!mcp) return setup;
  for (const s of mcp.statuses()) {
    if (s.state !== 'failed' || warned.has(s.name)) continue;
    warned.add(s.name);
    io.err(`mcp: server "${s.name}" is not available: ${(s.reason ?? '').split('\n')[0]}\n`);
  }
  mcp.attach(setup.agent.tools);
  return {
    ...setup,
    policies: [...(setup.policies ?? []), mcp.runPolicy()],
    dispose: async () => {
      try {
        await setup.dispose?.();
      } finally {
        await mcp.close();
      }
    },
  };
}

/**
 * The agent factory of a module: its `createAgent` (or default factory function) when it has one, else its
 * AgentModule subclass loaded and built the way `qitos run` does it (config's agent options, model params), plus
 * the config's policies. Also how the module is recorded (as `qitos run` records it), for run.json and traces.
 */
async function agentFactory(
  path: string,
  exportName: string | undefined,
  config: QitosConfig,
  io: CliIO,
): Promise<{
  factory: AgentFactory;
  module: string;
  export?: string;
  sha256: string;
  probe?: (model: Model | undefined) => AgentModule<State, unknown>;
  policyNames?: (a: AgentModule<State, unknown>) => string[];
}> {
  const mod = await importAgentModule(path, path);
  const fromConfig = (agent: AgentModule<State, unknown>) => buildPolicies(config, agent);
  if (
    !exportName &&
    (typeof mod.createAgent === 'function' || (typeof mod.default === 'function' && !isClass(mod.default)))
  ) {
    const f = agentFactoryFromModule(mod, path);
    const rel = relative(io.cwd, path);
    const factory: AgentFactory = async (ctx) => {
      const setup = toBenchAgent(await f(ctx));
      return {
        ...setup,
        policies: [...(setup.policies ?? []), ...fromConfig(setup.agent as AgentModule<State, unknown>)],
      };
    };
    return {
      factory,
      module: rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel.split(sep).join('/') : path,
      sha256: await moduleSha256(path),
    };
  }
  const loaded = await loadAgent(path, exportName, io.cwd);
  const factory: AgentFactory = ({ model }) => {
    const agent = buildAgent(loaded, config, model);
    return { agent, policies: fromConfig(agent) };
  };
  return {
    factory,
    module: loaded.module,
    export: loaded.export,
    sha256: loaded.sha256 ?? (await moduleSha256(loaded.absPath)),
    probe: (model) => buildAgent(loaded, config, model),
    policyNames: (a) => fromConfig(a).map((p) => p.name),
  };
}

/**
 * The parser, tools and policies an agent class is built with (`components`), from one agent built the way a trial
 * builds it. None for a factory module (its agent may depend on the task) or an agent that cannot be built here.
 */
async function agentComponents(
  agent: {
    probe?: (model: Model | undefined) => AgentModule<State, unknown> | undefined;
    policyNames?: (a: AgentModule<State, unknown>) => string[];
  },
  model: () => Promise<Model | undefined>,
): Promise<{ components?: { parser: string | null; tools: string[]; policies: string[] } }> {
  if (!agent.probe) return {};
  try {
    const built = agent.probe(await model());
    if (!built) return {};
    return {
      components: {
        parser: built.parser?.name ?? null,
        tools: built.tools.names,
        policies: agent.policyNames?.(built) ?? [],
      },
    };
  } catch {
    return {}; // the trials will report why it cannot be built
  }
}

function isClass(f: unknown): boolean {
  return typeof f === 'function' && /^class[\s{]/.test(Function.prototype.toString.call(f));
}

/** `--shard i/n`, or `--shard auto`: from the scheduler's environment (said on stderr, so a job's log shows it). */
function pickShard(value: string, io: CliIO): Shard {
  if (value.trim() !== 'auto') return parseShard(value);
  const { shard, source } = shardFromEnv(io.env);
  io.err(`shard ${formatShard(shard)} from ${source}\n`);
  return shard;
}

/** What `qitos bench compare` does. */
export async function benchCompareAction(io: CliIO, a: string, b: string, flags: BenchCompareFlags): Promise<void> {
  if (flags.rubric !== undefined && !flags.judge) throw new AppError('--rubric needs --judge <provider:model>');
  // Paths are shown as the user gave them, so the printed `qitos diff` lines can be pasted.
  const dirs: [string, string] = [resolve(io.cwd, a), resolve(io.cwd, b)];
  const c = userErrors(() =>
    compareRuns(dirs[0], dirs[1], { seed: flags.seed, resamples: flags.resamples, displayDirs: [a, b] }),
  );
  let pairwise;
  if (flags.judge) {
    const judge = pairwiseJudge(await resolveModel({ id: flags.judge }, io.cwd, io.env), {
      ...(flags.rubric ? { rubric: flags.rubric } : {}),
    });
    pairwise = await userErrorsAsync(() => judgeRuns(dirs[0], dirs[1], judge, { displayDirs: [a, b] }));
  }
  if (flags.json) io.out(JSON.stringify(pairwise ? { ...c, pairwise } : c, null, 2) + '\n');
  else io.out(renderComparison(c) + '\n' + (pairwise ? renderPairwise(pairwise) + '\n' : ''));
}

/** What `qitos bench merge` does. */
export function benchMergeAction(io: CliIO, dirs: string[], flags: BenchMergeFlags): void {
  const m = userErrors(() =>
    mergeRuns(
      dirs.map((d) => resolve(io.cwd, d)),
      resolve(io.cwd, flags.out),
      { displayDirs: dirs },
    ),
  );
  io.out(
    flags.json
      ? JSON.stringify(m.summary, null, 2) + '\n'
      : `merged ${dirs.length} run(s) into ${flags.out}\n${summaryText(m.summary, relative(io.cwd, m.outDir) || '.')}`,
  );
}

/** A progress bar on a terminal (cli-progress), one plain line per finished trial otherwise. */
function progressReporter(
  io: CliIO,
  flags: BenchRunFlags,
  suite: string,
): { update: (p: BenchProgress) => void; stop: () => void } {
  if (flags.progress === false || flags.json) return { update: () => undefined, stop: () => undefined };
  const rate = (p: BenchProgress) =>
    p.passed + p.failed ? `${((100 * p.passed) / (p.passed + p.failed)).toFixed(1)}%` : '-';
  const cost = (p: BenchProgress) => (p.cost === null ? 'unknown' : `$${p.cost.toFixed(4)}`);
  const payload = (p: BenchProgress) => ({ pass: rate(p), tokens: p.tokens, cost: cost(p), errors: p.errors });
  if (process.stderr.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        format: `${suite} {bar} {value}/{total} | pass {pass} | tokens {tokens} | cost {cost} | errors {errors} | eta {eta_formatted}`,
        stream: process.stderr,
        hideCursor: true,
        etaBuffer: 20,
      },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    return {
      update: (p) => {
        if (!started) {
          bar.start(p.total, p.done, payload(p));
          started = true;
        } else bar.update(p.done, payload(p));
      },
      stop: () => {
        if (started) bar.stop();
      },
    };
  }
  return {
    update: (p) => {
      if (!p.last) {
        if (p.skipped) io.err(`resuming: ${p.skipped} of ${p.total} trials already recorded\n`);
        return;
      }
      const l = p.last;
      const verdict = l.error ? `ERROR${l.errorAt ? ` at ${l.errorAt}` : ''}` : l.pass ? 'pass' : 'fail';
      io.err(
        `[${p.done}/${p.total}] ${l.taskId} e${l.epoch} ${verdict} (${l.stopReason}, ${l.steps} ` +
          `steps, ${Math.round(l.durationMs)} ms) | pass ${rate(p)} | tokens ${p.tokens} | ` +
          `cost ${cost(p)}\n`,
      );
    },
    stop: () => undefined,
  };
}

/** The text printed after a run or merge. */
export function summaryText(s: Summary, dir: string): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const lines = [
    `suite ${s.suite}: ${s.trials}/${s.expectedTrials} ` +
      `trials${s.complete ? '' : ` (${s.missing} missing${s.interrupted ? ', interrupted: continue with --resume' : ''})`}`,
    `pass rate ${pct(s.passRate.rate)} (${s.passRate.passed}/${s.passRate.total}), 95% ` +
      `CI ${pct(s.passRate.ci[0])}-${pct(s.passRate.ci[1])}`,
  ];
  // pass@k needs a task with k recorded epochs; an interrupted run may have none yet.
  if (s.epochs > 1 && s.passAtK[s.epochs] !== undefined)
    lines.push(`pass@${s.epochs} ${pct(s.passAtK[s.epochs])}, pass^${s.epochs} ${pct(s.passHatK[s.epochs])}`);
  const hats = Object.keys(s.passHatK)
    .map(Number)
    .sort((a, b) => a - b);
  if (hats.length > 1) lines.push(`pass^k: ${hats.map((k) => `^${k} ${pct(s.passHatK[k])}`).join(', ')}`);
  for (const [purpose, b] of Object.entries(s.byPurpose ?? {}))
    lines.push(
      `${purpose} calls (in the totals, not the agent's steps): ${b.modelCalls} ` +
        `calls, ${b.tokens} tokens, ${b.cost === null ? 'unknown cost' : `$${b.cost.toFixed(4)}`}`,
    );
  if (s.perSuccess.tokens !== null)
    lines.push(
      `per success: ${Math.round(s.perSuccess.tokens)} ` +
        `tokens, ${s.perSuccess.cost === null ? 'unknown cost' : `$${s.perSuccess.cost.toFixed(4)}`}`,
    );
  if (s.scoring.modelCalls)
    lines.push(
      `scoring (judge): ${s.scoring.modelCalls} calls, ${s.scoring.tokens} ` +
        `tokens, ${s.scoring.cost === null ? 'unknown cost' : `$${s.scoring.cost.toFixed(4)}`}`,
    );
  lines.push(
    `stop reasons: ${
      Object.entries(s.stopReasons)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ') || 'none'
    }`,
  );
  const errors = s.errors.run + s.errors.setup + s.errors.scorer;
  if (errors)
    lines.push(
      `errors: ${errors} (run ${s.errors.run}, scorer ${s.errors.scorer}, ` +
        `setup ${s.errors.setup}); ` +
        `first: ${s.errors.samples[0]?.error.split('\n')[0] ?? ''}${s.errors.samples[0]?.at ? ` (at ${s.errors.samples[0].at})` : ''}`,
    );
  if (s.trials > 0 && errors === s.trials)
    lines.push('every trial ended in an error: check the model, the agent and the first error above');
  lines.push(`report: ${join(dir, 'report.md')}`);
  return lines.join('\n') + '\n';
}

/** Errors the bench library throws for bad input are user errors: one line, no stack. */
export function userErrors<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw AppError.of(err);
  }
}

export async function userErrorsAsync<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw AppError.of(err);
  }
}
