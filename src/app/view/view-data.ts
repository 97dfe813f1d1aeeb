import type { StepRecord } from '../../core/index.js';
import { totalTokens } from '../../core/index.js';
import type { TextDiff, Trace } from '../../trace/index.js';
import { diffTraces } from '../../trace/index.js';
import { viewWorkflow, type ViewWorkflow } from './view-workflow.js';
import { settingDifferences } from '../../core/index.js';
import { manifestSettings } from '../run-settings.js';
import { variantText } from '../text-format.js';

/** Longest string kept in the page for outputs and model replies, and for state changes (shown elsewhere in full). */
const MAX_TEXT = 20_000;
const MAX_STATE_TEXT = 2_000;

/** One run as the viewer shows it. */
export interface ViewRun {
  dir: string;
  runId: string;
  status: string;
  createdAt: string;
  agent: string;
  model: string | null;
  task: string;
  parent: unknown;
  stopReason: string | null;
  stopMessage: string | null;
  finalResult: string | null;
  steps: number;
  tokens: number;
  cost: number | null;
  durationMs: number | null;
  failures: unknown[];
  warnings: string[];
  /** A workflow run's graph with per-node status, or null. */
  workflow: ViewWorkflow | null;
  /** The run's variant: its label (`AgentModule.variant`), or for B of two runs the settings that differ from A's. */
  variant: string | null;
}

/**
 * One row of the viewer's timeline: the step number, its index in each run's steps (-1: absent), differing
 * phases, and `inh` for a step before a fork point that the fork shares with its parent.
 */
export interface ViewRow {
  s: number;
  a: number;
  b: number;
  ph: string[];
  inh?: true;
}

/** Everything the page embeds as JSON. */
export interface ViewData {
  runs: ViewRun[];
  steps: unknown[][];
  rows: ViewRow[];
  first: { step: number; phase: string; detail: string } | null;
  /** Two runs: their differing system prompts, tool specs and configs, each with a unified diff (see TraceDiff.texts). */
  texts?: TextDiff[];
}

/** Builds the page data for one trace, or two traces side by side with their differences. */
export function viewData(traces: Trace[], branches: ReadonlyMap<string, readonly Trace[]> = new Map()): ViewData {
  const runs = traces.map((t) => viewRun(t, branches.get(t.dir) ?? []));
  const steps = traces.map((t) => t.steps.map(compactStep));
  if (traces.length === 1)
    return { runs, steps, rows: traces[0].steps.map((s, i) => ({ s: s.step, a: i, b: -1, ph: [] })), first: null };
  const diff = diffTraces(traces[0], traces[1]);
  const index = (t: Trace) => new Map(t.steps.map((s, i) => [s.step, i]));
  const [ia, ib] = [index(traces[0]), index(traces[1])];
  const rows = diff.steps.map((d): ViewRow => ({
    s: d.step,
    a: ia.get(d.step) ?? -1,
    b: ib.get(d.step) ?? -1,
    ph:
      d.modelInput && d.phases.includes('model_input')
        ? d.phases.map((p) => (p === 'model_input' ? `model_input(${d.modelInput!.join(',')})` : p))
        : d.phases,
    ...(d.inherited ? { inh: true as const } : {}),
  }));
  // B's variant: the settings in which it differs from A (the agent module, its hash, the config, the components).
  runs[1].variant =
    variantText(settingDifferences(manifestSettings(traces[0].manifest), manifestSettings(traces[1].manifest))) ||
    'the same settings as A';
  return {
    runs,
    steps,
    rows,
    first: diff.first,
    texts: diff.texts.map((t) => ({ ...t, diff: t.diff === null ? null : (clip(t.diff, MAX_TEXT * 5) as string) })),
  };
}

function viewRun(t: Trace, branches: readonly Trace[]): ViewRun {
  const m = t.manifest;
  const s = m.summary;
  const warnings = [...t.warnings];
  const workflow = viewWorkflow(t, warnings, branches);
  return {
    dir: t.dir,
    runId: m.runId,
    status: m.status,
    createdAt: m.createdAt,
    agent: m.agent.name,
    model: m.model?.id ?? null,
    task: String(m.task.objective ?? ''),
    parent: m.parent,
    stopReason: s?.stopReason ?? null,
    stopMessage: s?.message ?? null,
    finalResult: s?.finalResult ?? null,
    steps: s?.steps ?? t.steps.length,
    tokens: s ? totalTokens(s.usage.tokens) : t.steps.reduce((n, x) => n + (x.tokens ? totalTokens(x.tokens) : 0), 0),
    cost: s ? s.usage.cost : null,
    durationMs: s?.durationMs ?? null,
    failures: s?.failures ?? [],
    warnings,
    workflow,
    variant: m.agent.variant ?? null,
  };
}

/** A step with long strings cut, keys shortened where the page reads many of them. */
function compactStep(s: StepRecord): Record<string, unknown> {
  return {
    step: s.step,
    startedAt: s.startedAt,
    durationMs: s.durationMs,
    phases: s.phases,
    observation: clip(s.observation, MAX_TEXT),
    decision: clip(s.decision, MAX_TEXT),
    results: clip(s.results, MAX_TEXT),
    model: s.model ? clip(s.model, MAX_TEXT) : null,
    tokens: s.tokens ? { ...s.tokens, total: totalTokens(s.tokens) } : null,
    cost: s.cost ?? null,
    error: s.error ?? null,
    stop: s.stop ?? null,
    branch: s.branch ? clip(s.branch, MAX_TEXT) : null,
    critiques: s.critiques ? clip(s.critiques, MAX_TEXT) : null,
    state: clip(pageStateDiff(s.stateDiff), MAX_STATE_TEXT),
  };
}

/**
 * A state diff as the page shows it: what was set and unset, and per spliced list where and how many items; of
 * spliced top-level messages only the user messages' text parts (shown under the model input). The assistant and
 * tool messages a step appends repeat its model reply and tool results, which the page shows from the step itself.
 * Changes inside an object (`patch`) are paged the same way, level by level.
 */
function pageStateDiff(diff: StepRecord['stateDiff'], top = true): unknown {
  if (!diff?.splice && !diff?.patch) return diff;
  const out: Record<string, unknown> = { ...diff };
  if (diff.splice) {
    const splice: Record<string, { at: number; items: unknown[] }> = {};
    for (const [key, { at, items }] of Object.entries(diff.splice))
      splice[key] = { at, items: top && key === 'messages' ? items.map(pageMessage) : items.map(() => null) };
    out.splice = splice;
  }
  if (diff.patch) {
    const patch: Record<string, unknown> = {};
    for (const [key, sub] of Object.entries(diff.patch)) patch[key] = pageStateDiff(sub, false);
    out.patch = patch;
  }
  return out;
}

function pageMessage(item: unknown): unknown {
  const m = item as { role?: unknown; parts?: unknown } | null;
  if (m?.role !== 'user' || !Array.isArray(m.parts)) return { role: m?.role ?? null };
  return { role: 'user', parts: m.parts.filter((p: { type?: unknown }) => p?.type === 'text') };
}

/** Copies a JSON value with every string longer than `max` cut (and marked). */
export function clip(value: unknown, max: number): unknown {
  if (typeof value === 'string')
    return value.length > max ? `${value.slice(0, max)}… [${value.length - max} more characters in the trace]` : value;
  if (Array.isArray(value)) return value.map((v) => clip(v, max));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = clip(v, max);
    return out;
  }
  return value;
}
