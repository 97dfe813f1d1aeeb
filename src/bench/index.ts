/**
 * Benchmark suites: define and load suites, score answers, run them concurrently with resume and sharding, summarise,
 * compare, judge and merge runs, sweep a grid of settings. The list is deliberate: what a user writes code against.
 * The CLI and the tests import the rest (result files, hashing, scorer specs, ...) from the files that hold them.
 */
import '../core/zod-version.js'; // first: a zod older than 4 stops here with the fix, not deep inside another module
export { BenchTask, type BenchTaskInput } from './bench-task.js';
export { defineSuite, type Suite, type SuiteDefinition } from './suite.js';
export { loadSuite, type LoadSuiteOptions } from './load-suite.js';
export { Score, verdict, type ScoreInput, type Scorer } from './scorer.js';
export { TextNormalization, normalizeText } from './scorers/normalize-text.js';
export { exactMatch } from './scorers/exact-match.js';
export { contains } from './scorers/contains.js';
export { regex } from './scorers/regex.js';
export { numeric } from './scorers/numeric.js';
export { jsonField } from './scorers/json-field.js';
export { jsonMatch } from './scorers/json-match.js';
export type { JsonCompareMode } from './scorers/json-compare.js';
export { exprScorer } from './scorers/expr-scorer.js';
export { custom, type CustomScoreResult } from './scorers/custom.js';
export { llmJudge, DEFAULT_JUDGE_PROMPT, type LlmJudgeOptions } from './scorers/llm-judge.js';
export { gaiaMatch } from './scorers/gaia-match.js';
export { toBenchAgent, type AgentFactory, type AgentFactoryContext, type BenchAgent } from './bench-agent.js';
export { runSuite, type RunSuiteOptions, type RunSuiteResult, type BenchProgress } from './run-suite.js';
export {
  findSuiteProvider,
  providerOptions,
  type SuiteProvider,
  type SuiteOption,
  type SuiteRunContext,
  type ProvidedRun,
  type ProvidedSuite,
  type ReopenedSuite,
} from './suite-provider.js';
export { ResultLine } from './result-line.js';
export { RateLimiter, parseRateLimit, rateLimitMiddleware, rateLimitedModel, type RateLimit } from './rate-limit.js';
export { parseShard, shardFromEnv, type Shard, type ShardFromEnv } from './shard.js';
export { Summary, summarize, type SummaryMeta } from './summary.js';
export { renderReport } from './report.js';
export {
  compareRuns,
  renderComparison,
  type Comparison,
  type CompareOptions,
  type Flip,
  type PairedMean,
} from './compare.js';
export {
  pairwiseJudge,
  DEFAULT_PAIRWISE_PROMPT,
  type PairwiseJudge,
  type PairwiseJudgeOptions,
  type PairwiseInput,
  type PairwiseVerdict,
  type PairwiseWinner,
} from './pairwise-judge.js';
export {
  judgeRuns,
  renderPairwise,
  type PairwiseComparison,
  type PairVerdict,
  type JudgeRunsOptions,
} from './judge-runs.js';
export { mergeRuns, type MergeResult } from './merge-runs.js';
export { parseGridAxis, sweepCells, type GridAxis, type SweepCell } from './sweep-grid.js';
export { sweepReport, renderSweep, type SweepReport, type SweepCellResult, type SweepCellRun } from './sweep-report.js';
export { benchReportData, type BenchReportData } from './report-data.js';
export * as stats from './stats.js';
