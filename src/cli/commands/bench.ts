import type { Command } from 'commander';
import { ioOf } from '../io.js';
import type {
  BenchRunFlags,
  BenchCompareFlags,
  BenchMergeFlags,
  BenchReportFlags,
  BenchSweepFlags,
} from './command-flags.js';
import { nonNegativeInt, positiveInt, repeatable, SET_HELP } from '../option-parsers.js';
import { withOtelOptions } from '../otel-options.js';
import type { SuiteProvider } from '../../bench/index.js';
import { suiteProviders } from '../../app/suite-providers.js';

/**
 * `qitos bench run | sweep | compare | merge | report`: run a suite, sweep a grid of settings, compare two runs with
 * paired statistics, join shards, chart runs.
 */
export function registerBenchCommand(program: Command): void {
  const bench = program
    .command('bench')
    .description('run benchmark suites, sweep grids of settings, compare runs (paired statistics) and merge shards');
  const providers = suiteProviders();
  registerBenchRun(bench, providers);
  registerBenchSweep(bench, providers);
  registerBenchCompare(bench);
  registerBenchMerge(bench);
  registerBenchReport(bench);
}

/** What the `<suite>` argument takes: a suite on disk, or a benchmark's suite by name. */
function suiteArgumentHelp(providers: readonly SuiteProvider[]): string {
  const named = providers.flatMap((p) => p.suites).join(' | ');
  return `suite folder (suite.yaml or suite.ts), a suite.yaml file, a suite module${named ? `, or ${named}` : ''}`;
}

/** Adds the options every suite provider declares (each names its benchmark; given for another suite, refused). */
function withSuiteOptions(command: Command, providers: readonly SuiteProvider[]): Command {
  for (const p of providers) for (const o of p.options) command.option(o.flag, o.description);
  return command;
}

/** The benchmarks known by name, and their examples, after a command's own help. */
function benchmarksHelp(providers: readonly SuiteProvider[]): string {
  return providers
    .map(
      (p) =>
        `\n${p.name}: ${p.description}\n` +
        (p.agentHelp ? `  --agent: ${p.agentHelp}\n` : '') +
        (p.examples ?? []).map((e) => `  $ ${e}\n`).join(''),
    )
    .join('');
}

function registerBenchRun(bench: Command, providers: readonly SuiteProvider[]): void {
  withSuiteOptions(
    withOtelOptions(
      bench
        .command('run')
        .description('run every task of a suite (concurrently, with resume and sharding), score it and write a report')
        .argument('<suite>', suiteArgumentHelp(providers))
        .option(
          '-a, --agent <module>',
          "agent module (default: the suite's agent): exports createAgent(ctx) or an AgentModule subclass " +
            '(a benchmark may also name its own agents: see below)',
        )
        .option('--export <name>', 'export of the agent class (for modules without createAgent)')
        .option(
          '-m, --model <provider:model>',
          'model for every task, e.g. openai:gpt-4o-mini or scripted:replies.json',
        )
        .option('-c, --config <file.yaml>', 'config file (model options, budgets, policies); flags override it')
        .option('--set <key=value>', SET_HELP, repeatable, []),
    )
      .option('-j, --concurrency <n>', 'trials at once (default: 4 per core, 2..32)', positiveInt)
      .option('-k, --epochs <n>', "runs per task (default: the suite's epochs)", positiveInt)
      .option(
        '--shard <i/n|auto>',
        'run only shard i of n (0-based), chosen by a stable hash of the task id; auto: from ' +
          'QITOS_SHARD=i/n, a Kubernetes Indexed Job (JOB_COMPLETION_INDEX + QITOS_SHARD_COUNT) or a ' +
          'Slurm array (SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT)',
      )
      .option('-o, --out <dir>', 'output folder (default: .bench-out/<suite>-<time>)')
      .option(
        '--resume',
        'continue the run in --out: skip task/epoch pairs already in results.jsonl; refused when its recorded settings differ',
      )
      .option(
        '--force-resume',
        'with --resume: continue even when the recorded settings differ (mixes two variants; run.json records it)',
      )
      .option('--rate-limit <N[/s|/m]>', 'at most N model requests per second (N/s) or minute (N/m), across all trials')
      .option('--max-steps <n>', 'step budget of every task', positiveInt)
      .option(
        '--auto',
        'approve every call a permission rule would ask about (deny rules still refuse); without it asks are refused',
      )
      .option('--no-progress', 'no progress bar or progress lines')
      .option('--json', 'print summary.json instead of the text summary'),
    providers,
  )
    .option('--trials <n>', 'runs per task (the same as --epochs; pass^k is reported for k up to n)', positiveInt)
    .addHelpText(
      'after',
      '\nExamples:\n  $ qitos bench run benchmarks/arithmetic\n' +
        '  $ qitos bench run benchmarks/gaia-sample --model openai:gpt-4o-mini ' +
        '--epochs 3 --rate-limit 300/m\n' +
        '  $ qitos bench run benchmarks/arithmetic --shard auto --out runs/shard-$JOB_COMPLETION_INDEX   # in a Kubernetes Indexed Job\n' +
        '  $ qitos bench run benchmarks/arithmetic --out runs/a --resume\n' +
        benchmarksHelp(providers),
    )
    .action(async function (this: Command, suitePath: string, flags: BenchRunFlags) {
      const { benchRunAction } = await import('./bench-action.js');
      await benchRunAction(ioOf(this), suitePath, flags);
    });
}

function registerBenchSweep(bench: Command, providers: readonly SuiteProvider[]): void {
  withSuiteOptions(
    bench
      .command('sweep')
      .description(
        'run a suite for every cell of a grid of settings (concurrently, resumable) and compare ' +
          'every cell with a baseline (paired, Holm-corrected)',
      )
      .argument('<suite>', suiteArgumentHelp(providers))
      .requiredOption(
        '--grid <key=v1,v2,...>',
        'an axis of the grid: a config path (as --set takes it, or model) and its comma-separated ' +
          'values (repeatable: the cells are the cross product)',
        repeatable,
        [],
      )
      .requiredOption(
        '-o, --out <dir>',
        'sweep folder: one bench output folder per cell, named by its settings, and sweep.json',
      )
      .option(
        '--baseline <cell>',
        'the cell the others are compared with, as key=value,... (default: the first cell: the first value of every axis)',
      )
      .option('-a, --agent <module>', "agent module (default: the suite's agent)")
      .option('--export <name>', 'export of the agent class (for modules without createAgent)')
      .option('-m, --model <provider:model>', 'model of every cell (a model axis overrides it)')
      .option('-c, --config <file.yaml>', 'config file of every cell; flags, --set and the grid override it')
      .option('--set <key=value>', SET_HELP, repeatable, [])
      .option('-j, --concurrency <n>', 'trials at once across all cells (default: 4 per core, 2..32)', positiveInt)
      .option('-k, --epochs <n>', "runs per task (default: the suite's epochs)", positiveInt)
      .option('--rate-limit <N[/s|/m]>', 'at most N model requests per second or minute, across all cells')
      .option('--max-steps <n>', 'step budget of every task', positiveInt)
      .option(
        '--force-resume',
        'continue cell folders whose recorded settings differ (mixes variants; run.json records it)',
      )
      .option('--seed <n>', 'bootstrap seed of the comparisons (default 1)', nonNegativeInt)
      .option('--resamples <n>', 'bootstrap resamples (default 10000)', positiveInt)
      .option('--csv <file>', 'also write the table as CSV')
      .option('--no-progress', 'no line per finished cell')
      .option('--json', 'print the sweep (sweep.json) instead of the table'),
    providers,
  )
    .addHelpText(
      'after',
      '\nExamples:\n  $ qitos bench sweep benchmarks/arithmetic --grid ' +
        "'model=openai:gpt-4o-mini,openai:gpt-4o' --grid 'model.params.temperature=0,0.7' -o " +
        'sweeps/t\n' +
        "  $ qitos bench sweep benchmarks/arithmetic --grid 'engine.maxSteps=2,6' -o sweeps/steps " +
        '--baseline engine.maxSteps=6 --csv steps.csv\n',
    )
    .action(async function (this: Command, suitePath: string, flags: BenchSweepFlags) {
      const { benchSweepAction } = await import('./bench-sweep-action.js');
      await benchSweepAction(ioOf(this), suitePath, flags);
    });
}

function registerBenchCompare(bench: Command): void {
  bench
    .command('compare')
    .description(
      'paired comparison of run B against run A: pass-rate delta with a bootstrap CI, exact McNemar test, flipped tasks',
    )
    .argument('<runA>', 'output folder of the baseline run')
    .argument('<runB>', 'output folder of the run to compare')
    .option('--seed <n>', 'bootstrap seed (default 1)', nonNegativeInt)
    .option('--resamples <n>', 'bootstrap resamples (default 10000)', positiveInt)
    .option(
      '--judge <provider:model>',
      "also ask this model which run's answer is better, for every paired trial (both orders)",
    )
    .option('--rubric <text>', 'what the judge compares on (with --judge)')
    .option('--json', 'print the comparison as JSON')
    .addHelpText(
      'after',
      '\nExamples:\n  $ qitos bench compare runs/a runs/b\n  $ qitos bench compare runs/a ' +
        'runs/b --judge openai:gpt-4o-mini --rubric "correct and cites a source"\n',
    )
    .action(async function (this: Command, a: string, b: string, flags: BenchCompareFlags) {
      const { benchCompareAction } = await import('./bench-action.js');
      await benchCompareAction(ioOf(this), a, b, flags);
    });
}

function registerBenchMerge(bench: Command): void {
  bench
    .command('merge')
    .description('join the output folders of shards into one run; fails when a task is missing or recorded twice')
    .argument('<dirs...>', 'shard output folders')
    .requiredOption('-o, --out <dir>', 'folder for the merged results, summary and report')
    .option('--json', 'print the merged summary.json')
    .action(async function (this: Command, dirs: string[], flags: BenchMergeFlags) {
      const { benchMergeAction } = await import('./bench-action.js');
      benchMergeAction(ioOf(this), dirs, flags);
    });
}

function registerBenchReport(bench: Command): void {
  bench
    .command('report')
    .description(
      'one offline HTML page charting runs: pass rate with CI, cost against score, tokens and latency, tasks that flip',
    )
    .argument('<dirs...>', 'bench output folders (the first is A, the baseline of the flip counts)')
    .option('-o, --out <file.html>', 'the page to write (default: bench-report.html)')
    .option('--json', 'print where the page went and what it holds, as JSON')
    .addHelpText('after', '\nExamples:\n  $ qitos bench report runs/a runs/b -o report.html\n')
    .action(async function (this: Command, dirs: string[], flags: BenchReportFlags) {
      const { benchReportAction } = await import('./bench-report-action.js');
      await benchReportAction(ioOf(this), dirs, flags);
    });
}
