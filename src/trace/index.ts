/**
 * `qitos-ts/trace`: read a run's trace folder, replay it (ReplayModel, ReplayExecutor, drift), write one, and
 * diff two runs step by step.
 */
import '../core/zod-version.js'; // first: a zod older than 4 stops here with the fix, not deep inside another module
export { readTrace, readManifest, parseJsonl, TraceError, type Trace } from '../engine/trace-reader.js';
export { TraceWriter } from '../engine/trace-writer.js';
export { ReplayModel, type ReplayModelOptions } from '../engine/replay-model.js';
export { ReplayExecutor, type ReplayExecutorOptions } from '../engine/replay-executor.js';
export { ReplayDriftError, DRIFT_PART_NAMES, type ReplayDrift, type DriftPart } from '../engine/replay-drift.js';
export { diffTraces, DIFF_PHASES, type DiffPhase, type StepDiff, type RunTotals, type TraceDiff } from '../cli/trace-diff.js';
