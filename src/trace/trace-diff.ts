import type { Decision, StepRecord } from '../core/index.js';
import { canonicalJson, totalTokens } from '../core/index.js';
import type { Trace } from './trace-reader.js';
import { jsonDiffText, unifiedTextDiff } from './text-diff.js';
import { traceTexts, type TraceTexts } from './trace-texts.js';

/** The phases of a step two runs can part in, in loop order. `missing`: the step exists in one run only. */
export const DIFF_PHASES = [
  'observation',
  'model_input',
  'decision',
  'action_args',
  'result',
  'state',
  'error',
  'missing',
] as const;
export type DiffPhase = (typeof DIFF_PHASES)[number];

/** How one step of A compares with the same step of B. */
export interface StepDiff {
  step: number;
  /** Phases that differ, in loop order (empty when the step is the same). */
  phases: DiffPhase[];
  /** True for a step before a fork point that only the parent has (the fork inherited it). */
  inherited?: boolean;
  /** For `model_input`: which request parts differ (system, messages, tools, params) or why. */
  modelInput?: string[];
  a: string | null;
  b: string | null;
}

/** Totals of one run. */
export interface RunTotals {
  runId: string;
  model: string | null;
  steps: number;
  tokens: number;
  cost: number | null;
  durationMs: number | null;
  stopReason: string | null;
  finalResult: string | null;
}

/** A step-aligned comparison of two traces. */
export interface TraceDiff {
  same: boolean;
  /** The first step where the runs part, and the first phase (in loop order) that differs there. */
  first: { step: number; phase: DiffPhase; detail: string } | null;
  /** Whether the states the runs started from differ (ids and times ignored). */
  initialStateDiffers: boolean;
  steps: StepDiff[];
  totals: { a: RunTotals; b: RunTotals };
  /** The system prompts, tool specs and configs that differ, with a unified diff of their texts. */
  texts: TextDiff[];
}

/** What kind of text a TextDiff compares. */
export type TextDiffKind = 'system prompt' | 'tool specs' | 'config';

/**
 * One pair of differing texts of two runs: the hashes, and the unified line diff of the texts, or null with a
 * `note` when a trace does not hold the text (one written before traces recorded prompts and tool specs).
 * `step` is the first step whose model call sent the pair (absent for what the manifests hold).
 */
export interface TextDiff {
  kind: TextDiffKind;
  step?: number;
  hashA: string | null;
  hashB: string | null;
  diff: string | null;
  note?: string;
}

/** Keys whose values change on every run without meaning anything: generated ids, timestamps, latencies. */
const VOLATILE = new Set([
  'id',
  'taskId',
  'callID',
  'callId',
  'actionId',
  'time',
  'latencyMs',
  'durationMs',
  'executionTimeMs',
  'startedAt',
]);

/** A value with volatile keys removed at every level, as canonical JSON. */
export function stableJson(value: unknown): string {
  return canonicalJson(strip(value));
}

function strip(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(strip);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (!VOLATILE.has(k)) out[k] = strip(v);
    return out;
  }
  return value;
}

/** A decision without action ids (what replay and diff compare). */
export function decisionKey(d: Decision | null): string {
  if (!d) return 'null';
  return canonicalJson(d.mode === 'act' ? { ...d, actions: d.actions.map(({ name, args }) => ({ name, args })) } : d);
}

/** A short label of what a step did: `calc(expr="1+2")`, `final: 3`, `wait`, `error: parse`. */
export function stepLabel(s: StepRecord | undefined): string | null {
  if (!s) return null;
  const d = s.decision;
  if (!d) return s.error ? `error: ${s.error.kind}` : '(no decision)';
  if (d.mode === 'final') return `final: ${d.answer}`;
  if (d.mode === 'act')
    return d.actions
      .map(
        (a) =>
          `${a.name}(${Object.entries(a.args)
            .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
            .join(', ')})`,
      )
      .join(' ');
  return d.mode;
}

/** Compares two traces step by step (aligned by step number). */
export function diffTraces(a: Trace, b: Trace): TraceDiff {
  const byStepB = new Map(b.steps.map((s) => [s.step, s]));
  const byStepA = new Map(a.steps.map((s) => [s.step, s]));
  const numbers = [...new Set([...a.steps.map((s) => s.step), ...b.steps.map((s) => s.step)])].sort((x, y) => x - y);
  const forkAt = forkPoint(a, b);
  const steps: StepDiff[] = [];
  let first: TraceDiff['first'] = null;
  for (const n of numbers) {
    const sa = byStepA.get(n);
    const sb = byStepB.get(n);
    const d = diffStep(n, sa, sb);
    if (forkAt !== undefined && n <= forkAt && (!sa || !sb)) {
      // A fork starts after step k: the parent's steps up to k are the fork's history, not a difference.
      d.phases = [];
      d.inherited = true;
    }
    steps.push(d);
    if (!first && d.phases.length) first = { step: n, phase: d.phases[0], detail: detailOf(d, sa, sb) };
  }
  const initialStateDiffers =
    forkAt === undefined && stableJson(a.manifest.initialState) !== stableJson(b.manifest.initialState);
  const stopA = a.manifest.summary?.stopReason ?? null;
  const stopB = b.manifest.summary?.stopReason ?? null;
  return {
    same: !first && !initialStateDiffers && stopA === stopB,
    first,
    initialStateDiffers,
    steps,
    totals: { a: totals(a), b: totals(b) },
    texts: textDiffs(a, b),
  };
}

/** At most this many differing pairs of one kind are diffed (a prompt that changes every step would flood the report). */
const MAX_TEXT_PAIRS = 3;

/**
 * The differing system prompts, tool specs and configs of two runs: the manifests' (the prompt and tools the
 * runs started with, the effective config), then each further differing pair the aligned steps' model calls sent.
 */
export function textDiffs(a: Trace, b: Trace): TextDiff[] {
  const [ta, tb] = [traceTexts(a), traceTexts(b)];
  const out: TextDiff[] = [];
  const seen = new Set<string>();
  const add = (kind: 'system prompt' | 'tool specs', ha: string | undefined, hb: string | undefined, step?: number) => {
    if (ha === undefined || hb === undefined || ha === hb) return;
    const key = `${kind}\u0000${ha}\u0000${hb}`;
    if (seen.has(key) || out.filter((d) => d.kind === kind).length >= MAX_TEXT_PAIRS) return;
    seen.add(key);
    out.push(pairDiff(kind, ha, hb, ta, tb, step));
  };
  const [ma, mb] = [a.manifest.hashes, b.manifest.hashes];
  add('system prompt', ma.systemPrompt, mb.systemPrompt);
  add('tool specs', ma.toolSchemas, mb.toolSchemas);
  const byStepB = new Map(b.steps.map((s) => [s.step, s]));
  for (const sa of a.steps) {
    const sb = byStepB.get(sa.step);
    if (!sa.model || !sb?.model) continue;
    add('system prompt', sa.model.hashes.system, sb.model.hashes.system, sa.step);
    add('tool specs', sa.model.hashes.tools, sb.model.hashes.tools, sa.step);
  }
  const [ca, cb] = [a.manifest.config, b.manifest.config];
  if (ca && cb && canonicalJson(ca) !== canonicalJson(cb)) {
    out.push({
      kind: 'config',
      hashA: ma.config ?? null,
      hashB: mb.config ?? null,
      diff: unifiedTextDiff(jsonDiffText(ca), jsonDiffText(cb), { labelA: 'A config', labelB: 'B config' }),
    });
  }
  return out;
}

function pairDiff(
  kind: 'system prompt' | 'tool specs',
  ha: string,
  hb: string,
  ta: TraceTexts,
  tb: TraceTexts,
  step: number | undefined,
): TextDiff {
  const text = (t: TraceTexts, h: string) =>
    kind === 'system prompt' ? t.prompts.get(h) : t.toolSpecs.has(h) ? jsonDiffText(t.toolSpecs.get(h)) : undefined;
  const [xa, xb] = [text(ta, ha), text(tb, hb)];
  const at = step === undefined ? {} : { step };
  if (xa === undefined || xb === undefined) {
    const missing = [xa === undefined ? 'A' : null, xb === undefined ? 'B' : null].filter(Boolean).join(' and ');
    return {
      kind,
      ...at,
      hashA: ha,
      hashB: hb,
      diff: null,
      note: `the trace of ${missing} does not hold the ${kind} text (written before traces recorded it): only the hashes differ`,
    };
  }
  return {
    kind,
    ...at,
    hashA: ha,
    hashB: hb,
    diff: unifiedTextDiff(xa, xb, { labelA: `A ${kind}`, labelB: `B ${kind}` }),
  };
}

/** When one trace is a fork of the other, the step it was forked after. */
function forkPoint(a: Trace, b: Trace): number | undefined {
  const pa = a.manifest.parent;
  const pb = b.manifest.parent;
  if (pb?.kind === 'fork' && pb.runId === a.manifest.runId) return pb.atStep;
  if (pa?.kind === 'fork' && pa.runId === b.manifest.runId) return pa.atStep;
  return undefined;
}

function diffStep(step: number, a: StepRecord | undefined, b: StepRecord | undefined): StepDiff {
  const out: StepDiff = { step, phases: [], a: stepLabel(a), b: stepLabel(b) };
  if (!a || !b) {
    out.phases.push('missing');
    return out;
  }
  if (stableJson(a.observation) !== stableJson(b.observation)) out.phases.push('observation');
  const mi = modelInputDiff(a, b);
  if (mi.length) {
    out.phases.push('model_input');
    out.modelInput = mi;
  }
  const [da, db] = [a.decision, b.decision];
  const shape = (d: Decision | null) =>
    d
      ? canonicalJson({
          mode: d.mode,
          answer: 'answer' in d ? d.answer : undefined,
          rationale: d.rationale,
          calls: d.mode === 'act' ? d.actions.map((x) => x.name) : undefined,
        })
      : 'null';
  if (shape(da) !== shape(db)) out.phases.push('decision');
  else if (
    da?.mode === 'act' &&
    db?.mode === 'act' &&
    da.actions.some((x, i) => canonicalJson(x.args) !== canonicalJson(db.actions[i].args))
  )
    out.phases.push('action_args');
  const result = (s: StepRecord) =>
    stableJson(s.results.map((r) => ({ name: r.name, status: r.status, output: r.output, error: r.error })));
  if (result(a) !== result(b)) out.phases.push('result');
  if (stableJson(a.stateDiff) !== stableJson(b.stateDiff)) out.phases.push('state');
  if (stableJson(a.error ?? null) !== stableJson(b.error ?? null)) out.phases.push('error');
  return out;
}

function modelInputDiff(a: StepRecord, b: StepRecord): string[] {
  if (!a.model && !b.model) return [];
  if (!a.model || !b.model) return [`only ${a.model ? 'A' : 'B'} called the model`];
  return (['system', 'messages', 'tools', 'params'] as const).filter((p) => a.model!.hashes[p] !== b.model!.hashes[p]);
}

function detailOf(d: StepDiff, a: StepRecord | undefined, b: StepRecord | undefined): string {
  const phase = d.phases[0];
  if (phase === 'missing')
    return a
      ? `only A has step ${d.step} (B ended after step ${d.step - 1})`
      : `only B has step ${d.step} (A ended after step ${d.step - 1})`;
  if (phase === 'model_input') return `model input differs in ${d.modelInput!.join(', ')}`;
  if (phase === 'decision' || phase === 'action_args') return `A: ${d.a}  |  B: ${d.b}`;
  if (phase === 'result')
    return (
      `A: ${a!.results.map((r) => `${r.name} ${r.status}`).join(', ')}  |  ` +
      `B: ${b!.results.map((r) => `${r.name} ${r.status}`).join(', ')}`
    );
  if (phase === 'state') {
    const keys = (s: StepRecord) => [
      ...Object.keys(s.stateDiff.set ?? {}),
      ...Object.keys(s.stateDiff.splice ?? {}),
      ...Object.keys(s.stateDiff.patch ?? {}),
      ...(s.stateDiff.unset ?? []),
    ];
    const all = [...new Set([...keys(a!), ...keys(b!)])].filter(
      (k) => stableJson(pick(a!, k)) !== stableJson(pick(b!, k)),
    );
    return `state differs in ${all.join(', ') || '(diff shape)'}`;
  }
  if (phase === 'error')
    return (
      `A: ${a!.error ? `${a!.error.kind}: ${a!.error.message}` : 'no error'}  |  ` +
      `B: ${b!.error ? `${b!.error.kind}: ${b!.error.message}` : 'no error'}`
    );
  return `${phase} differs`;
}

function pick(s: StepRecord, key: string): unknown {
  const d = s.stateDiff;
  return [d.set?.[key], d.splice?.[key], d.patch?.[key], d.unset?.includes(key)];
}

function totals(t: Trace): RunTotals {
  const m = t.manifest;
  const s = m.summary;
  const tokens = s
    ? totalTokens(s.usage.tokens)
    : t.steps.reduce((n, x) => n + (x.tokens ? totalTokens(x.tokens) : 0), 0);
  return {
    runId: m.runId,
    model: m.model?.id ?? null,
    steps: s?.steps ?? t.steps.length,
    tokens,
    cost: s ? s.usage.cost : null,
    durationMs: s?.durationMs ?? null,
    stopReason: s?.stopReason ?? null,
    finalResult: s?.finalResult ?? null,
  };
}
