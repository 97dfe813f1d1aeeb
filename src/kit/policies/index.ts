import '../../core/zod-version.js'; // first: a zod older than 4 stops here with the fix, not deep inside another module
export { doomLoop, findRepetition, DOOM_LOOP_NOTE, type DoomLoopOptions, type DoomLoopDetection } from './doom-loop.js';
export { compaction, type CompactionOptions } from './compaction.js';
export { budgets, stepBudget, timeBudget, tokenBudget, costBudget, type BudgetLimits } from './budgets.js';
export { contextLimits, type ContextLimits, MAX_DEFAULT_RESERVE, FALLBACK_RESERVE_SHARE } from './context-limits.js';
export { planPrune, applyPrune, type PrunePlan, type PrunedOutput, type PruneOptions } from './prune-tool-outputs.js';
export {
  SUMMARY_PROMPT,
  SUMMARY_HEADER,
  isUserTurn,
  planSummary,
  renderTranscript,
  summaryRequest,
  summaryMessage,
  applySummary,
  type SummaryPlan,
  type Transcript,
} from './summarise-history.js';
export {
  HistoryEstimator,
  estimateTextTokens,
  estimatePartTokens,
  estimateMessageTokens,
  toolOutputTokens,
  CHARS_PER_TOKEN,
  FILE_PART_TOKENS,
} from './token-estimate.js';
export { RunMemory } from './run-memory.js';
