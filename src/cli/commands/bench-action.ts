import { join, relative, resolve } from 'node:path';
import cliProgress from 'cli-progress';
import {
  compareRuns,
  judgeRuns,
  mergeRuns,
  pairwiseJudge,
  parseRateLimit,
  parseShard,
  renderComparison,
  renderPairwise,
  runSuite,
  shardFromEnv,
  type BenchProgress,
  type Shard,
  type Summary,
} from '../../bench/index.js';
import { formatShard } from '../../bench/shard.js';
import { AppError } from '../../app/app-error.js';
import { openBenchSuite, userErrors, userErrorsAsync } from '../../app/bench-run.js';
import { effectiveConfig } from '../../app/effective-config.js';
import { commandTelemetry } from '../../app/telemetry-setup.js';
import { EXIT_FAILED, EXIT_INTERRUPTED } from '../../app/exit-codes.js';
import { resolveModel } from '../../app/model-resolver.js';
import { suiteProviders } from '../../app/suite-providers.js';
import type { CliIO } from '../io.js';
import type { BenchCompareFlags, BenchMergeFlags, BenchRunFlags } from './command-flags.js';
import { watchStopSignals } from '../../engine/signal-watcher.js';

/** What `qitos bench run` does (loaded when the command runs, so `qitos --help` stays fast). */
export async function benchRunAction(io: CliIO, suitePath: string, flags: BenchRunFlags): Promise<void> {
  const shard = flags.shard !== undefined ? userErrors(() => pickShard(flags.shard!, io)) : undefined;
  const rateLimit = flags.rateLimit !== undefined ? userErrors(() => parseRateLimit(flags.rateLimit!)) : undefined;
  if (flags.resume && !flags.out) throw new AppError('--resume needs --out <dir>: the folder of the run to continue');
  if (flags.forceResume && !flags.resume) throw new AppError('--force-resume goes with --resume');
  if (flags.trials !== undefined && flags.epochs !== undefined && flags.trials !== flags.epochs)
    throw new AppError('--trials is another name for --epochs: give one of them');
  const { suite, prepare } = await openBenchSuite(io, suitePath, flags, suiteProviders());
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
