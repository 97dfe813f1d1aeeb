/**
 * The trace module: how a run becomes a folder (writer, recorder, state differ), how a folder becomes data again
 * (reader, state at a step), and what is done with it (replay model and executor, drift, diff of two runs).
 * It depends on `src/core` only; the engine records through it and the CLI reads through it.
 */
import '../core/zod-version.js'; // first: a zod older than 4 stops here with the fix, not deep inside another module
export { TraceWriter } from './trace-writer.js';
export { manifestSignature, checkManifestSignature } from './manifest-signature.js';
export { loadTraceKey, traceKeyPath } from './trace-key.js';
export { readTrace, readManifest, parseJsonl, TraceError, type Trace, type TraceSignature } from './trace-reader.js';
export { RunRecorder, type TraceOptions, type RunDescription, type RunSnapshot } from './run-recorder.js';
export { StateDiffer } from './state-differ.js';
export { stateAtStep } from './state-at-step.js';
export { shortHash } from './short-hash.js';
export { sideCallHashes, type SideCallHashes } from './side-call-hashes.js';
export { fileSafeName } from './file-safe-name.js';
export { firstUserFrame } from './first-user-frame.js';
export { ReplayModel, type ReplayModelOptions } from './replay-model.js';
export { ReplayMemory, type ReplayMemoryOptions } from './replay-memory.js';
export { ReplayExecutor, type ReplayExecutorOptions } from './replay-executor.js';
export { ReplayApprovals } from './replay-approvals.js';
export { ReplayEdits, REPLAY_EDIT_ID } from './replay-edits.js';
export { ReplayDriftError, DRIFT_PART_NAMES, type ReplayDrift, type DriftPart } from './replay-drift.js';
export {
  diffTraces,
  textDiffs,
  stepLabel,
  decisionKey,
  stableJson,
  DIFF_PHASES,
  type DiffPhase,
  type StepDiff,
  type RunTotals,
  type TraceDiff,
  type TextDiff,
  type TextDiffKind,
} from './trace-diff.js';
export { unifiedTextDiff, jsonDiffText, type TextDiffOptions } from './text-diff.js';
export { traceTexts, type TraceTexts } from './trace-texts.js';
// Not yet stable (docs/api.md, "Stability"): OpenTelemetry export. Its spans follow the GenAI semantic
// conventions, which are still in development upstream, and change with them (docs/telemetry.md).
/** @experimental OpenTelemetry export. */
export { otlpTap, type OtlpTap, type OtlpTapOptions } from './otel/otlp-tap.js';
/** @experimental OpenTelemetry export. */
export { exportTraces } from './otel/export-traces.js';
/** @experimental OpenTelemetry export. */
export {
  resolveOtlpEndpoint,
  DEFAULT_OTLP_TIMEOUT_MS,
  type OtlpEndpoint,
  type OtlpEndpointOptions,
} from './otel/otlp-endpoint.js';
/** @experimental OpenTelemetry export. */
export { GEN_AI_SEMCONV_VERSION } from './otel/gen-ai-attributes.js';
/** @experimental OpenTelemetry export. */
export type { RunSpanOptions } from './otel/run-spans.js';
