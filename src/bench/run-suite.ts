import { setMaxListeners } from 'node:events';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative, resolve } from 'node:path';
import type { Budget, Model, State, StopReason, TaskInput, TraceTap } from '../core/index.js';
import {
  bugStack,
  emptyTokens,
  errorMessage,
  formatSettingDifference,
  settingDifferences,
  totalTokens,
  type SettingDifference,
} from '../core/index.js';
import { firstUserFrame } from '../trace/first-user-frame.js';
import { unifiedTextDiff } from '../trace/text-diff.js';
import { Engine, type EngineOptions, type RunResult } from '../engine/engine.js';
import { fileSafeName } from '../trace/index.js';
import { forEachConcurrent } from '../engine/for-each-concurrent.js';
import { toBenchAgent, type AgentFactory, type BenchAgent } from './bench-agent.js';
import type { BenchTask } from './bench-task.js';
import { RateLimiter, rateLimitMiddleware, type RateLimit } from './rate-limit.js';
import { renderReport } from './report.js';
import { pairKey, type ResultLine } from './result-line.js';
import { ResultsAppender, readResults, repairResults } from './results-file.js';
import { readRunInfo, writeJsonAtomic, type RunInfo } from './run-info.js';
import { Score } from './scorer.js';
import { formatShard, inShard, parseShard, type Shard } from './shard.js';
import { resolveSuite, type Suite, type SuiteDefinition } from './suite.js';
import { summarize, type Summary } from './summary.js';
import type { TrialSlots } from './trial-slots.js';

/** Progress of a suite run, reported after every finished trial. */
export interface BenchProgress {
  /** Trials finished, including those recorded by an earlier run that `resume` skipped. */
  done: number;
  total: number;
  /** Trials skipped because results.jsonl already had them. */
  skipped: number;
  passed: number;
  failed: number;
  errors: number;
  tokens: number;
  /** Cost so far (null once any trial's cost was unknown). */
  cost: number | null;
  elapsedMs: number;
  /** The trial that just finished (undefined for the first report of a resumed run). */
  last?: ResultLine;
}

/** Options of `runSuite`. */
export interface RunSuiteOptions {
  suite: Suite | SuiteDefinition;
  /** Builds a fresh agent (and optionally env/policies) for each task and epoch. */
  agentFactory: AgentFactory;
  /** The model every run uses over the agent's own (`--model`); a function builds one per trial. */
  model?: Model | ((ctx: { task: BenchTask; epoch: number }) => Model);
  /** Trials run at once (default `defaultConcurrency()`). */
  concurrency?: number;
  /** Runs per task (default: the suite's `epochs`). */
  epochs?: number;
  /** Run only this shard of the tasks (`"i/n"` or `{ index, count }`). */
  shard?: Shard | string;
  /** Output folder: results.jsonl, traces/, summary.json, report.md, run.json. */
  outDir: string;
  /** Skip task/epoch pairs already in results.jsonl. Without it, a folder with results is an error. */
  resume?: boolean;
  /** Ends the run: trials in flight are aborted and not recorded (a resume runs them again). */
  signal?: AbortSignal;
  onProgress?: (progress: BenchProgress) => void;
  /** Limits model requests across all concurrent trials. */
  rateLimit?: RateLimit;
  /** A rate limiter shared with other runs (a sweep's cells), used instead of one made from `rateLimit`. */
  rateLimiter?: RateLimiter;
  /** Slots shared with other runs (a sweep's cells): each trial also holds one while it runs. */
  slots?: TrialSlots;
  /** Budget of every trial, over the suite's. */
  budget?: Budget;
  /** Labels recorded in run.json, summary and traces (e.g. the agent module path, the model spec). */
  agentLabel?: string;
  modelLabel?: string;
  /** The export of the agent module (recorded with `agentLabel` as each trace's agent source, for replay). */
  agentExport?: string;
  /**
   * The effective config recorded in every trace's manifest (`config`), so `qitos replay` and `fork` can rebuild
   * a trial; the CLI passes its config (model, engine with the suite's budget, policies). Default: none.
   */
  traceConfig?: Record<string, unknown>;
  /**
   * The run's effective settings (any JSON object; the CLI records agent module + sha-256, model, engine, policies,
   * agent options), written to run.json. A resume whose settings differ from the recorded ones is refused with the
   * differing fields, unless `forceResume`.
   */
  settings?: Record<string, unknown>;
  /** Resume even when `settings` differ from the recorded ones; the differences are recorded in run.json (`forcedResumes`). */
  forceResume?: boolean;
  /** The sha-256 of the agent module file, recorded with `agentLabel` in each trace's manifest. */
  agentSha256?: string;
  /** Record every streamed delta in the traces (large; default off). */
  streamDeltas?: boolean;
  /** Signs every trace's manifest with this key (the CLI's trace key, so `qitos replay` and `fork` trust its trials). */
  signingKey?: Uint8Array | undefined;
  /** Where every trial's trace records also go (live OpenTelemetry export: `otlpTap`). */
  tap?: TraceTap | undefined;
  /**
   * Engine settings applied to every trial: recovery limit, tool execution, permission rules and who answers asks,
   * memory (a factory gives each trial its own), critics, search.
   */
  engine?: Pick<
    EngineOptions<State>,
    | 'maxRecoveries'
    | 'tools'
    | 'failOnHookError'
    | 'permission'
    | 'onApproval'
    | 'approvalTimeoutMs'
    | 'memory'
    | 'critics'
    | 'search'
  >;
}

/** What `runSuite` returns. */
export interface RunSuiteResult {
  outDir: string;
  summary: Summary;
  /** Every result of the run folder (earlier ones included). */
  results: ResultLine[];
  /** Trials run now (recorded), and trials skipped because they were already recorded. */
  ran: number;
  skipped: number;
  interrupted: boolean;
}

/**
 * The default concurrency: 4 trials per core (agents mostly wait on their model, so more trials than cores keep
 * the machine busy), at least 2 and at most 32. Bound it further with `rateLimit` for a provider's quota.
 */
export function defaultConcurrency(): number {
  return Math.max(2, Math.min(32, availableParallelism() * 4));
}

/** The trace folder name of a task in an epoch: the id made file-safe (plus a hash when that changed it). */
export function traceRunId(taskId: string, epoch: number): string {
  return `${fileSafeName(taskId, { lowerCase: true })}.e${epoch}`;
}

/** Stop reasons that mean the run failed rather than ended (recorded as a run error). */
const ERROR_STOPS = new Set<StopReason>([
  'unrecoverable_error',
  'task_invalid',
  'env_capability_mismatch',
  'interrupted',
]);

/**
 * Runs a suite: every task of the (shard of the) suite for every epoch, `concurrency` at a time, one trace per
 * trial under `outDir/traces`, one line per finished trial appended to `outDir/results.jsonl`, then
 * summary.json and report.md. Never throws for what a trial does (agents, models and scorers that fail are
 * recorded as errors); throws for bad options and for I/O errors on the output folder.
 */
export async function runSuite(options: RunSuiteOptions): Promise<RunSuiteResult> {
  const suite = await resolveSuite(options.suite);
  const folder = openRunFolder(options, suite);
  const { queue, skipped } = pendingTrials(folder);
  const run = await runTrials(options, suite, folder, queue, skipped);
  const interrupted = !!options.signal?.aborted;
  const final = readResults(folder.resultsFile);
  const summary = summarize(final.results, {
    suite: suite.name,
    model: folder.info.model,
    agent: folder.info.agent,
    epochs: folder.epochs,
    shard: folder.info.shard,
    taskIds: folder.info.taskIds,
    interrupted,
    warnings: [...folder.read.warnings],
  });
  writeJsonAtomic(join(folder.outDir, 'summary.json'), summary);
  writeFileSync(join(folder.outDir, 'report.md'), renderReport(summary));
  return { outDir: folder.outDir, summary, results: final.results, ran: run.ran, skipped, interrupted };
}

/**
 * Checks that `runSuite(options)` would accept its output folder (a resume of the same suite, shard and settings,
 * or a folder without results) without running or writing anything; throws the error runSuite would.
 */
export async function checkRunFolder(options: RunSuiteOptions): Promise<void> {
  openRunFolder(options, await resolveSuite(options.suite), { write: false });
}

/** A run's output folder, opened: its paths, the tasks and epochs to run, what results.jsonl already holds. */
interface RunFolder {
  outDir: string;
  tracesDir: string;
  resultsFile: string;
  epochs: number;
  tasks: BenchTask[];
  info: RunInfo;
  read: ReturnType<typeof readResults>;
}

/**
 * Checks the options, opens the output folder (refusing one with results unless resuming, and a resume of a
 * different run), repairs a results file cut by a crash and writes run.json.
 */
function openRunFolder(options: RunSuiteOptions, suite: Suite, opts: { write: boolean } = { write: true }): RunFolder {
  const outDir = resolve(options.outDir);
  const tracesDir = join(outDir, 'traces');
  const resultsFile = join(outDir, 'results.jsonl');
  const previous = readRunInfo(outDir);
  // A resumed run keeps the epochs it was started with unless told otherwise (a Ctrl-C'd `--epochs 3` run resumed
  // without the flag must not quietly become a complete 1-epoch run).
  const epochs = options.epochs ?? (options.resume && previous ? previous.epochs : suite.epochs);
  if (!Number.isInteger(epochs) || epochs < 1) throw new Error(`epochs must be a positive integer, got ${epochs}`);
  const concurrency = options.concurrency ?? defaultConcurrency();
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new Error(`concurrency must be a positive integer, got ${concurrency}`);
  const shard = typeof options.shard === 'string' ? parseShard(options.shard) : options.shard;
  const tasks = shard ? suite.tasks.filter((t) => inShard(t.id, shard)) : suite.tasks;

  const modelLabel =
    options.modelLabel ?? (options.model && typeof options.model !== 'function' ? options.model.id : null);
  const now = new Date().toISOString();
  const read = readResults(resultsFile);
  if (!options.resume && read.results.length)
    throw new Error(
      `${resultsFile} already has ${read.results.length} results: pass resume (--resume) to ` +
        `continue that run, or choose another output folder`,
    );
  const agentLabel = options.agentLabel ?? suite.agent ?? null;
  const warnings: string[] = [];
  const forced =
    previous && options.resume
      ? checkResumable(
          previous,
          {
            suite: suite.name,
            shard,
            model: modelLabel,
            agent: agentLabel,
            settings: options.settings,
            force: options.forceResume ?? false,
          },
          warnings,
        )
      : [];
  if (opts.write) mkdirSync(tracesDir, { recursive: true });
  if (opts.write) repairResults(resultsFile, read);
  const info: RunInfo = {
    schema: 'qitos.bench.run',
    version: 1,
    suite: suite.name,
    suiteDir: suite.dir ?? null,
    epochs: Math.max(epochs, previous?.epochs ?? 0),
    shard: shard ? formatShard(shard) : null,
    taskIds: tasks.map((t) => t.id),
    suiteTaskIds: suite.tasks.map((t) => t.id),
    model: modelLabel,
    agent: agentLabel,
    createdAt: previous?.createdAt ?? now,
    updatedAt: now,
    // The settings the folder's first trials ran with stay recorded; a forced resume adds what it changed.
    ...(previous?.config ? { config: previous.config } : options.settings ? { config: options.settings } : {}),
    ...(previous?.forcedResumes || forced.length
      ? {
          forcedResumes: [
            ...(previous?.forcedResumes ?? []),
            ...(forced.length ? [{ at: now, differences: forced }] : []),
          ],
        }
      : {}),
  };
  if (opts.write) writeJsonAtomic(join(outDir, 'run.json'), info);
  return {
    outDir,
    tracesDir,
    resultsFile,
    epochs,
    tasks,
    info,
    read: { ...read, warnings: [...read.warnings, ...warnings] },
  };
}

/** The task/epoch pairs still to run (epoch by epoch), and how many results.jsonl already has. */
function pendingTrials(folder: RunFolder): { queue: Array<{ task: BenchTask; epoch: number }>; skipped: number } {
  const done = new Set(folder.read.results.map((r) => pairKey(r.taskId, r.epoch)));
  const queue: Array<{ task: BenchTask; epoch: number }> = [];
  let skipped = 0;
  for (let epoch = 1; epoch <= folder.epochs; epoch++) {
    for (const task of folder.tasks) {
      if (done.has(pairKey(task.id, epoch))) skipped++;
      else queue.push({ task, epoch });
    }
  }
  return { queue, skipped };
}

/**
 * Runs the pending trials through one pool, appending each finished trial's line and reporting progress. The
 * caller's signal, or an I/O error of our own, stops every trial in flight (those are not recorded: a resume
 * runs them again).
 */
async function runTrials(
  options: RunSuiteOptions,
  suite: Suite,
  folder: RunFolder,
  queue: Array<{ task: BenchTask; epoch: number }>,
  skipped: number,
): Promise<{ ran: number }> {
  const concurrency = options.concurrency ?? defaultConcurrency();
  const controller = new AbortController();
  // Every trial in flight listens to this signal: that is `concurrency` listeners, not a leak.
  setMaxListeners(Math.max(10, concurrency + 10), controller.signal);
  const onAbort = () => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const limiter = options.rateLimiter ?? (options.rateLimit ? new RateLimiter(options.rateLimit) : undefined);
  const started = Date.now();
  const progress: BenchProgress = {
    done: skipped,
    total: skipped + queue.length,
    skipped,
    passed: 0,
    failed: 0,
    errors: 0,
    tokens: 0,
    cost: 0,
    elapsedMs: 0,
  };
  const ids = new Set(folder.info.taskIds);
  for (const r of folder.read.results) if (r.epoch <= folder.epochs && ids.has(r.taskId)) count(progress, r);
  options.onProgress?.({ ...progress });

  let ran = 0;
  const appender = new ResultsAppender(folder.resultsFile);
  const trial = async ({ task, epoch }: { task: BenchTask; epoch: number }): Promise<void> => {
    const release = options.slots ? await options.slots.acquire() : undefined;
    try {
      if (controller.signal.aborted) return;
      const line = await runTrial({
        task,
        epoch,
        suite,
        options,
        tracesDir: folder.tracesDir,
        outDir: folder.outDir,
        limiter,
        signal: controller.signal,
      });
      if (!line) return; // aborted in flight: not recorded, a resume reruns it
      appender.append(line);
      ran++;
      progress.done++;
      count(progress, line);
      progress.elapsedMs = Date.now() - started;
      options.onProgress?.({ ...progress, last: line });
    } catch (err) {
      controller.abort(err);
      throw err;
    } finally {
      release?.();
    }
  };
  try {
    await forEachConcurrent(queue, concurrency, trial, () => controller.signal.aborted);
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    appender.close();
  }
  return { ran };
}

/** What a resume is checked against: the run it continues must be of this suite, shard, model, agent and settings. */
interface ResumeTarget {
  suite: string;
  shard: Shard | undefined;
  model: string | null;
  agent: string | null;
  settings: Record<string, unknown> | undefined;
  force: boolean;
}

/**
 * Unified line diffs of the differing settings that are texts of several lines (a system prompt in the agent's
 * options, say), so a refusal shows what changed in them rather than two long values.
 */
function textDiffs(differences: readonly SettingDifference[]): string {
  const long = differences.filter(
    (d) =>
      typeof d.from === 'string' &&
      typeof d.to === 'string' &&
      (d.from.includes('\n') || d.to.includes('\n') || d.from.length + d.to.length > 160),
  );
  return long
    .map(
      (d) =>
        `\n${unifiedTextDiff(d.from as string, d.to as string, { labelA: `${d.path} (recorded)`, labelB: `${d.path} (now)` })}`,
    )
    .join('');
}

/**
 * Refuses to resume a run of another suite or shard, and a run with other settings unless `force` (then returns
 * the differences, to record). A folder that records no settings (older qitos) is checked by model and agent only.
 */
function checkResumable(previous: RunInfo, now: ResumeTarget, warnings: string[]): SettingDifference[] {
  if (previous.suite !== now.suite)
    throw new Error(`cannot resume: the output folder holds a run of suite "${previous.suite}", not "${now.suite}"`);
  const s = now.shard ? formatShard(now.shard) : null;
  if (previous.shard !== s)
    throw new Error(`cannot resume: the output folder holds shard ${previous.shard ?? '(none)'}, not ${s ?? '(none)'}`);
  if (previous.config && now.settings) {
    // Mixing two variants' trials in one results file would make every figure of the run meaningless.
    const differences = settingDifferences(previous.config, now.settings);
    if (differences.length && !now.force) {
      throw new Error(
        `cannot resume: the output folder holds a run with other settings (recorded -> ` +
          `now): ${differences.map(formatSettingDifference).join('; ')}. Resume with the recorded ` +
          `settings, choose another output folder, or pass --force-resume to mix the two knowingly ` +
          `(run.json records it)${textDiffs(differences)}`,
      );
    }
    return differences;
  }
  const label: Array<SettingDifference | undefined> = [
    previous.model !== now.model
      ? { path: 'model', from: previous.model ?? undefined, to: now.model ?? undefined }
      : undefined,
    previous.agent !== now.agent
      ? { path: 'agent', from: previous.agent ?? undefined, to: now.agent ?? undefined }
      : undefined,
  ];
  const changed = label.filter((d): d is SettingDifference => d !== undefined);
  if (changed.length && !now.force) {
    if (previous.model !== now.model)
      throw new Error(
        `cannot resume: the output folder holds a run with ` +
          `model ${previous.model ?? '(agent default)'}, not ${now.model ?? '(agent default)'} ` +
          `(--force-resume to mix them knowingly)`,
      );
    throw new Error(
      `cannot resume: the output folder holds a run of ` +
        `agent ${previous.agent ?? '(none recorded)'}, not ${now.agent ?? '(none recorded)'} ` +
        `(--force-resume to mix them knowingly)`,
    );
  }
  if (!previous.config && now.settings)
    warnings.push(
      'run.json records no settings (written by an older qitos): resumed without checking that the settings are the same',
    );
  return changed;
}

function count(p: BenchProgress, r: ResultLine): void {
  if (r.pass) p.passed++;
  else p.failed++;
  if (r.error) p.errors++;
  p.tokens += r.tokens;
  p.cost = p.cost === null || r.cost === null ? null : p.cost + r.cost;
}

interface TrialContext {
  task: BenchTask;
  epoch: number;
  suite: Suite;
  options: RunSuiteOptions;
  tracesDir: string;
  outDir: string;
  limiter: RateLimiter | undefined;
  signal: AbortSignal;
}

/** Runs and scores one task in one epoch. Undefined when the run was aborted before it could be recorded. */
async function runTrial(c: TrialContext): Promise<ResultLine | undefined> {
  const { task, epoch, options, signal } = c;
  const t0 = Date.now();
  const runId = traceRunId(task.id, epoch);
  const traceDir = join(c.tracesDir, runId);
  // A trace left by an attempt that was interrupted (and so never recorded) is replaced, not appended to.
  if (existsSync(traceDir)) rmSync(traceDir, { recursive: true, force: true });
  const base = {
    taskId: task.id,
    epoch,
    finishedAt: '',
    answer: null,
    runId: null,
    traceDir: null,
    tokenDetail: emptyTokens(),
    tokens: 0,
    cost: 0,
    modelCalls: 0,
    steps: 0,
  };

  const model = typeof options.model === 'function' ? options.model({ task, epoch }) : options.model;
  let setup: BenchAgent;
  try {
    setup = toBenchAgent(await options.agentFactory({ task, epoch, model, signal }));
  } catch (err) {
    if (signal.aborted) return undefined;
    const message = `agent setup failed: ${errorMessage(err)}`;
    const stack = bugStack(err);
    const at = stack ? firstUserFrame(stack) : undefined;
    return {
      ...base,
      pass: false,
      score: 0,
      explanation: message,
      stopReason: 'unrecoverable_error',
      durationMs: Date.now() - t0,
      error: message,
      errorKind: 'setup',
      ...(at ? { errorAt: at } : {}),
      finishedAt: new Date().toISOString(),
    };
  }
  const result = await runTrialEngine(c, setup, model, runId);
  const disposeError = await Promise.resolve()
    .then(() => setup.dispose?.())
    .then(
      () => null,
      (err: unknown) => `disposing the trial's setup failed: ${errorMessage(err)}`,
    );
  if (signal.aborted && result.stopReason === 'interrupted') return undefined;
  const usage = result.usage;
  const ran = {
    ...base,
    stopReason: result.stopReason,
    steps: result.steps,
    tokenDetail: usage.tokens,
    tokens: totalTokens(usage.tokens),
    cost: usage.cost,
    modelCalls: usage.modelCalls,
    runId: result.runId,
    traceDir: result.traceDir ? relative(c.outDir, result.traceDir) : null,
    answer: result.finalResult,
    ...(Object.keys(result.usageByPurpose ?? {}).length ? { usageByPurpose: result.usageByPurpose } : {}),
  };
  const runError =
    [ERROR_STOPS.has(result.stopReason) ? result.stopMessage : null, disposeError].filter(Boolean).join('; ') || null;
  const errorAt = ERROR_STOPS.has(result.stopReason) ? result.failures.find((f) => f.fatal && f.at)?.at : undefined;
  const scored = await scoreTrial(c, setup, result);
  if (scored === undefined) return undefined;
  if ('failure' in scored) {
    const message = scored.failure;
    return {
      ...ran,
      pass: false,
      score: 0,
      explanation: message,
      durationMs: Date.now() - t0,
      error: runError ? `${runError}; ${message}` : message,
      errorKind: 'scorer',
      finishedAt: new Date().toISOString(),
    };
  }
  const { usage: scorerUsage, ...verdict } = scored;
  return {
    ...ran,
    ...verdict,
    ...(scorerUsage && scorerUsage.modelCalls > 0 ? { scorerUsage } : {}),
    durationMs: Date.now() - t0,
    error: runError,
    errorKind: runError ? 'run' : null,
    ...(errorAt ? { errorAt } : {}),
    finishedAt: new Date().toISOString(),
  };
}

/** Runs the trial's agent on its task in an engine of its own (the suite's budget, the run's rate limit, one trace). */
function runTrialEngine(
  c: TrialContext,
  setup: BenchAgent,
  model: Model | undefined,
  runId: string,
): Promise<RunResult<State>> {
  const { options } = c;
  const runModel = model ?? setup.agent.model;
  const engine = new Engine({
    ...options.engine,
    ...(c.limiter ? { middleware: [rateLimitMiddleware(c.limiter)] } : {}),
    agent: setup.agent,
    ...(setup.env ? { env: setup.env } : {}),
    ...(runModel ? { model: runModel } : {}),
    policies: setup.policies ?? [],
    hooks: setup.hooks ?? [],
    services: setup.services ?? {},
    budget: { ...c.suite.budget, ...options.budget },
    runId,
    trace: {
      dir: c.tracesDir,
      streamDeltas: options.streamDeltas ?? false,
      ...(options.agentLabel
        ? {
            agentSource: {
              module: options.agentLabel,
              ...(options.agentExport ? { export: options.agentExport } : {}),
              ...(options.agentSha256 ? { sha256: options.agentSha256 } : {}),
            },
          }
        : {}),
      ...(options.traceConfig ? { config: options.traceConfig } : {}),
      ...(options.signingKey ? { signingKey: options.signingKey } : {}),
      ...(options.tap ? { tap: options.tap } : {}),
    },
  });
  return engine.run(c.task as TaskInput, { signal: c.signal });
}

/** The suite's scorer on a finished run: its score, a failure to record, or undefined when the run was aborted meanwhile. */
async function scoreTrial(
  c: TrialContext,
  setup: BenchAgent,
  result: RunResult<State>,
): Promise<Score | { failure: string } | undefined> {
  const scorer = c.suite.scorer;
  try {
    const raw = await scorer.score({
      task: c.task,
      answer: result.finalResult,
      expected: c.task.expected,
      stopReason: result.stopReason,
      steps: result.steps,
      usage: result.usage,
      state: result.state,
      env: setup.env,
      traceDir: result.traceDir,
      signal: c.signal,
    });
    const checked = Score.safeParse(raw);
    if (!checked.success) throw new Error(`returned ${JSON.stringify(raw)}, not { score: 0..1, pass, explanation }`);
    return checked.data;
  } catch (err) {
    if (c.signal.aborted) return undefined;
    return { failure: `scorer ${scorer.name} failed: ${errorMessage(err)}` };
  }
}
