import { deflateRawSync } from 'node:zlib';
import { clip, type ViewData } from './view-data.js';

/** Steps per compressed chunk: a step's details are decoded with its chunk, when its row is in view or it is opened. */
export const STEPS_PER_CHUNK = 64;

/** Longest string kept in a row's summary of a step (decision arguments, answer, error): what the row and filter read. */
const ROW_TEXT = 500;

/**
 * The viewer's data as the page embeds it: everything base64 of raw DEFLATE (the browser inflates it with
 * `DecompressionStream('deflate-raw')`). `meta` is the JSON of the runs, timeline rows, first difference, differing
 * texts and one short summary per step (`rowSteps`, what a timeline row and the filter read); `steps[run][c]` is the
 * JSON of that run's steps `c * chunk` up to `(c + 1) * chunk`, decoded only when needed.
 */
export interface PackedView {
  v: 2;
  meta: string;
  chunk: number;
  steps: string[][];
}

/** What `meta` holds once inflated. */
export type ViewMeta = Omit<ViewData, 'steps'> & { rowSteps: unknown[][] };

/** Packs view data for the page: a compressed index that the page reads at once, and compressed step chunks. */
export function packView(data: ViewData, chunk = STEPS_PER_CHUNK): PackedView {
  if (!Number.isInteger(chunk) || chunk < 1)
    throw new Error(`packView: chunk must be a positive integer, got ${chunk}`);
  const { steps, ...rest } = data;
  const meta: ViewMeta = { ...rest, rowSteps: steps.map((list) => list.map(rowStep)) };
  return {
    v: 2,
    meta: deflate(meta),
    chunk,
    steps: steps.map((list) => {
      const out: string[] = [];
      for (let i = 0; i < list.length; i += chunk) out.push(deflate(list.slice(i, i + chunk)));
      return out;
    }),
  };
}

function deflate(value: unknown): string {
  return deflateRawSync(JSON.stringify(value), { level: 9 }).toString('base64');
}

/** The fields of a step that its timeline row shows and the filter searches, with long strings cut. */
function rowStep(step: unknown): Record<string, unknown> {
  const s = (step ?? {}) as Record<string, unknown>;
  const tokens = s.tokens as { total?: unknown } | null | undefined;
  const d = s.decision as Record<string, unknown> | null | undefined;
  const e = s.error as Record<string, unknown> | null | undefined;
  return {
    step: s.step,
    durationMs: s.durationMs,
    tokens: tokens ? { total: tokens.total } : null,
    cost: s.cost,
    decision: d ? clip({ mode: d.mode, actions: rowActions(d.actions), answer: d.answer }, ROW_TEXT) : null,
    error: e ? clip({ kind: e.kind, message: e.message }, ROW_TEXT) : null,
  };
}

function rowActions(actions: unknown): unknown {
  if (!Array.isArray(actions)) return actions;
  return actions.map((a: { name?: unknown; args?: unknown }) => ({ name: a?.name, args: a?.args ?? {} }));
}
