import { readdirSync, readFileSync, statSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { totalTokens } from '../core/token-total.js';
import type { StopReason } from '../core/stop-reason.js';
import type { Manifest } from '../core/trace.js';
import { TRACE_SCHEMA, TRACE_VERSION } from '../core/trace-schema-id.js';
import { AppError } from './app-error.js';
import { settingDifferences, type SettingDifference } from '../core/setting-differences.js';

/** One run as `qitos runs` lists it. */
export interface RunRow {
  runId: string;
  path: string;
  agent: string;
  model: string | null;
  status: Manifest['status'];
  stopReason: string | null;
  steps: number | null;
  tokens: number | null;
  cost: number | null;
  createdAt: string;
  parent: Manifest['parent'];
  /** The run's settings (agent module, export and sha-256, and its recorded config without `trace`), as `--set` names them. */
  settings: Record<string, unknown>;
  /**
   * The run's variant: how its settings differ from those of the run of the same agent listed before it in time
   * (`against`); null for the first run of an agent.
   */
  variant: { against: string; differences: SettingDifference[] } | null;
}

/** The manifest fields a listing shows. */
type Listed = Pick<Manifest, 'runId' | 'status' | 'createdAt' | 'parent'> & {
  agent: Pick<Manifest['agent'], 'name'>;
  model: Pick<NonNullable<Manifest['model']>, 'id'> | null;
  summary:
    | (Pick<NonNullable<Manifest['summary']>, 'stopReason' | 'steps'> & {
        usage: Pick<NonNullable<Manifest['summary']>['usage'], 'tokens' | 'cost'>;
      })
    | null;
};

// The schema's enums, as records the compiler keeps in step with them (a value added to or removed from the schema
// is a type error here), so the check needs no zod at run time.
const STATUSES: Record<Manifest['status'], true> = { running: true, completed: true, failed: true, interrupted: true };
const PARENT_KINDS: Record<NonNullable<Manifest['parent']>['kind'], true> = { replay: true, fork: true, subtask: true };
const STOP_REASONS: Record<StopReason, true> = {
  final: true,
  agent_condition: true,
  env_terminal: true,
  budget_steps: true,
  budget_time: true,
  budget_tokens: true,
  budget_cost: true,
  doom_loop: true,
  context_overflow: true,
  critic_stop: true,
  interrupted: true,
  task_invalid: true,
  env_capability_mismatch: true,
  unrecoverable_error: true,
};
const isKey = <K extends string>(set: Record<K, true>, v: unknown): v is K =>
  typeof v === 'string' && Object.hasOwn(set, v);

/**
 * The runs under `root` (folders holding a manifest.json, up to `depth` levels down: bench writes one trace per
 * task in a sub-folder), newest first, and why the manifests it could not list were skipped.
 *
 * A listing over hundreds of traces must start fast, and importing zod and the contracts costs more than node's
 * own start. So manifests are read synchronously and only the fields listed are checked, here; a manifest whose
 * listed fields do not check goes to the trace reader, which validates it with the Manifest schema: it is listed
 * when the schema accepts it (a shape this check does not know), else skipped with the schema's reason.
 */
export async function listRuns(root: string, depth = 3): Promise<{ rows: RunRow[]; skipped: string[] }> {
  if (!isDirectory(root)) throw new AppError(`runs folder not found: ${root}`);
  const rows: RunRow[] = [];
  const unchecked: string[] = [];
  const walk = (dir: string, level: number): void => {
    const entries: Dirent[] = readdirSync(dir, { withFileTypes: true });
    if (entries.some((e) => e.isFile() && e.name === 'manifest.json')) {
      const listed = listedFields(readFileSync(join(dir, 'manifest.json'), 'utf8'));
      if (listed) rows.push(row(dir, listed));
      else unchecked.push(dir);
      return;
    }
    if (level >= depth) return;
    for (const e of entries) if (e.isDirectory() && !e.name.startsWith('.')) walk(join(dir, e.name), level + 1);
  };
  walk(root, 0);

  const skipped: string[] = [];
  if (unchecked.length) {
    const { readManifest, TraceError } = await import('../trace/trace-reader.js');
    for (const dir of unchecked) {
      try {
        rows.push(row(dir, await readManifest(dir)));
      } catch (err) {
        if (!TraceError.isInstance(err)) throw err;
        skipped.push(err.message);
      }
    }
  }
  rows.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  // Oldest first: each run is compared with the last earlier run of the same agent (name and module).
  const last = new Map<string, RunRow>();
  for (const r of [...rows].reverse()) {
    const key = `${r.agent}\u0000${String((r.settings.module as { path?: unknown } | undefined)?.path ?? '')}`;
    const before = last.get(key);
    r.variant = before ? { against: before.runId, differences: settingDifferences(before.settings, r.settings) } : null;
    last.set(key, r);
  }
  return { rows, skipped };
}

function row(dir: string, m: Listed): RunRow {
  return {
    runId: m.runId,
    path: dir,
    agent: m.agent.name,
    model: m.model?.id ?? null,
    status: m.status,
    stopReason: m.summary?.stopReason ?? null,
    steps: m.summary?.steps ?? null,
    tokens: m.summary ? totalTokens(m.summary.usage.tokens) : null,
    cost: m.summary ? m.summary.usage.cost : null,
    createdAt: m.createdAt,
    parent: m.parent,
    settings: settingsOf(m),
    variant: null,
  };
}

/**
 * A manifest's settings (the shape of manifestSettings: agent source, config, components), from the fields that have
 * the right type: the listing checks only
 * what it shows, so the rest of the manifest is untrusted here. A run that records a model but no config (built in
 * code) has `model.id`.
 */
function settingsOf(m: Listed): Record<string, unknown> {
  const raw = m as unknown as { agent: Record<string, unknown>; config?: unknown };
  const module = Object.fromEntries(
    ['module', 'export', 'sha256'].flatMap((k) =>
      typeof raw.agent[k] === 'string' ? [[k === 'module' ? 'path' : k, raw.agent[k]]] : [],
    ),
  );
  const { trace: _trace, ...config } = isRecord(raw.config) ? raw.config : {};
  if (!isRecord(config.model) && m.model) config.model = { id: m.model.id };
  const r = m as unknown as Record<string, unknown>;
  const names = (v: unknown) =>
    Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : undefined;
  const components = {
    parser: typeof r.parser === 'string' ? r.parser : null,
    tools: names(r.tools),
    policies: names(r.policies),
  };
  return { ...(Object.keys(module).length ? { module } : {}), ...config, components };
}

/**
 * The listed fields of a manifest when each one has the shape the Manifest schema requires, else undefined (a
 * property test holds it to that: it never takes a listed value the schema refuses).
 */
export function listedFields(text: string): Listed | undefined {
  let m: unknown;
  try {
    m = JSON.parse(text);
  } catch {
    return undefined; // the trace reader names the JSON error
  }
  if (!isRecord(m) || m.schema !== TRACE_SCHEMA || !isInt(m.version) || m.version > TRACE_VERSION) return undefined;
  const { runId, status, createdAt, agent, model, parent, summary } = m;
  if (typeof runId !== 'string' || typeof createdAt !== 'string' || !isKey(STATUSES, status)) return undefined;
  if (!isRecord(agent) || typeof agent.name !== 'string') return undefined;
  if (model !== null && !(isRecord(model) && typeof model.id === 'string')) return undefined;
  if (parent !== null && !isParent(parent)) return undefined;
  if (summary !== null && !isSummary(summary)) return undefined;
  return m as Listed;
}

function isParent(p: unknown): boolean {
  return (
    isRecord(p) &&
    typeof p.runId === 'string' &&
    typeof p.path === 'string' &&
    isKey(PARENT_KINDS, p.kind) &&
    (p.atStep === undefined || typeof p.atStep === 'number')
  );
}

function isSummary(s: unknown): boolean {
  if (!isRecord(s) || !isKey(STOP_REASONS, s.stopReason) || !isInt(s.steps) || !isRecord(s.usage)) return false;
  const { tokens, cost, modelCalls } = s.usage;
  if (
    !(cost === null || (typeof cost === 'number' && cost >= 0)) ||
    !isInt(modelCalls) ||
    !isRecord(tokens) ||
    !isRecord(tokens.cache)
  )
    return false;
  return [tokens.input, tokens.output, tokens.reasoning, tokens.cache.read, tokens.cache.write].every(
    (n) => isInt(n) && n >= 0,
  );
}

/** An integer as zod's `.int()` takes it (a safe integer). */
function isInt(v: unknown): v is number {
  return Number.isSafeInteger(v);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false; // missing or unreadable: the caller says the folder was not found
  }
}
