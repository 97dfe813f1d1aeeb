import { createHash } from 'node:crypto';
import type { Manifest } from '../../core/trace.js';
import { totalTokens } from '../../core/token-total.js';
import { listedFields } from '../../app/run-listing.js';

/** One run as the board lists it. Everything is read from its manifest (and, while it runs, its steps.jsonl). */
export interface BoardRow {
  /** The run's key in the board: `<root index>/<folder relative to that root>`; the only way a URL names a run. */
  id: string;
  /** The folder relative to its root, as shown. */
  path: string;
  runId: string;
  agent: string;
  model: string | null;
  /** The task's objective (cut at 300 characters) and its id when it has one. */
  task: string;
  taskId: string | null;
  status: Manifest['status'];
  stopReason: string | null;
  steps: number | null;
  tokens: number | null;
  cost: number | null;
  createdAt: string;
  durationMs: number | null;
  /** The run's variant: its label (`AgentModule.variant`), else `settings <digest>` of its agent module and config. */
  variant: string;
  /** The bench folder the run belongs to (its id in the board), or null. */
  bench: string | null;
  /** fork, replay or subtask when the run has a parent. */
  parent: string | null;
}

const MAX_TASK = 300;

/**
 * The board's row of a manifest's text, or undefined when the fields it lists do not have the types the Manifest
 * schema requires (the caller then asks the schema, which names what is wrong). The manifest is untrusted: every
 * field shown is type-checked (by `listedFields`, and here for the ones it does not check).
 */
export function boardRow(text: string, id: string, path: string, bench: string | null): BoardRow | undefined {
  const m = listedFields(text);
  if (!m) return undefined;
  return rowOf(m as unknown as Manifest, id, path, bench);
}

/** The row of a manifest the schema validated (or that `listedFields` checked). */
export function rowOf(m: Manifest, id: string, path: string, bench: string | null): BoardRow {
  const raw = m as unknown as Record<string, unknown>;
  const task = isRecord(raw.task) ? raw.task : {};
  const agent = raw.agent as Record<string, unknown>;
  const s = m.summary;
  const objective = typeof task.objective === 'string' ? task.objective : '';
  return {
    id,
    path,
    runId: m.runId,
    agent: m.agent.name,
    model: m.model?.id ?? null,
    task: objective.length > MAX_TASK ? `${objective.slice(0, MAX_TASK)}…` : objective,
    taskId: typeof task.id === 'string' ? task.id : null,
    status: m.status,
    stopReason: s?.stopReason ?? null,
    steps: s?.steps ?? null,
    tokens: s ? totalTokens(s.usage.tokens) : null,
    cost: s ? s.usage.cost : null,
    createdAt: m.createdAt,
    durationMs: s && typeof s.durationMs === 'number' ? s.durationMs : null,
    variant: typeof agent.variant === 'string' && agent.variant ? agent.variant : `settings ${settingsDigest(raw)}`,
    bench,
    parent: m.parent?.kind ?? null,
  };
}

/**
 * A short digest of what makes a run's settings (agent module, its hash, the recorded config without `trace`, model,
 * parser, tools, policies): runs with the same digest ran the same way, so sorting by variant groups them.
 */
function settingsDigest(raw: Record<string, unknown>): string {
  const agent = raw.agent as Record<string, unknown>;
  const { trace: _trace, ...config } = isRecord(raw.config) ? raw.config : {};
  const settings = {
    module: agent.module ?? null,
    sha256: agent.sha256 ?? null,
    export: agent.export ?? null,
    config,
    model: isRecord(raw.model) ? (raw.model.id ?? null) : null,
    parser: raw.parser ?? null,
    tools: raw.tools ?? null,
    policies: raw.policies ?? null,
  };
  let text: string;
  try {
    text = JSON.stringify(settings);
  } catch (err) {
    // a config nested past the stack (the trace reader refuses such a manifest when the run is opened)
    if (err instanceof RangeError) return '?';
    throw err;
  }
  return createHash('sha256').update(text).digest('hex').slice(0, 8);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
