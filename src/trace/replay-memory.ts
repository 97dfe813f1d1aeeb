import type { EventRecord, Memory, MemoryContext, MemoryRecord } from '../core/index.js';
import { MemoryRecord as MemoryRecordSchema } from '../core/index.js';
import { ReplayDriftError, type ReplayDrift } from './replay-drift.js';

/** Options of a ReplayMemory. */
export interface ReplayMemoryOptions {
  /** Serve the recorded answer even when the call differs from the recording (the drift is still listed). */
  allowDrift?: boolean;
}

type Op = 'append' | 'retrieve' | 'summarize' | 'evict';
interface RecordedOp {
  step: number;
  op: Op;
  data: Record<string, unknown>;
}

/**
 * Serves a trace's recorded memory reads instead of asking a live memory: the i-th `retrieve` of the replay gets
 * the records the i-th `retrieve` of the recording returned, `summarize` its text, `evict` its count; `append`
 * only checks. So a replay sees the same retrievals as the run, whatever the memory (a notes file, a vector
 * index) holds today. A call that differs from the recording (another op, query, k or record) is drift: a
 * ReplayDriftError unless `allowDrift`.
 */
export class ReplayMemory implements Memory {
  readonly name: string;
  readonly drifts: ReplayDrift[] = [];
  private readonly ops: RecordedOp[] = [];
  private cursor = 0;

  constructor(
    events: readonly EventRecord[],
    private readonly options: ReplayMemoryOptions = {},
  ) {
    let name: string | undefined;
    for (const e of events) {
      if (e.type !== 'memory') continue;
      const d = e.data as { memory?: unknown; op?: unknown; data?: unknown };
      if (typeof d.memory === 'string') name ??= d.memory;
      if (d.op === 'append' || d.op === 'retrieve' || d.op === 'summarize' || d.op === 'evict')
        this.ops.push({ step: e.step, op: d.op, data: (d.data ?? {}) as Record<string, unknown> });
    }
    this.name = name ?? 'replay';
  }

  /** True when the trace recorded memory calls (a replay then needs this memory in place of the live one). */
  get recorded(): boolean {
    return this.ops.length > 0;
  }

  private next(
    op: Op,
    ctx: MemoryContext,
    same: (d: Record<string, unknown>) => string | undefined,
  ): RecordedOp | undefined {
    const rec = this.ops[this.cursor];
    const problem = !rec
      ? `a memory ${op} the recording does not have`
      : rec.op !== op
        ? `memory ${op} where the recording has ${rec.op}`
        : same(rec.data);
    if (rec) this.cursor++;
    if (problem) {
      const drift: ReplayDrift = {
        step: rec?.step ?? ctx.step,
        parts: ['memory'],
        message: `replay drift at step ${ctx.step}: ${problem}`,
      };
      this.drifts.push(drift);
      if (!this.options.allowDrift) throw new ReplayDriftError(drift);
    }
    return rec?.op === op ? rec : undefined;
  }

  append(record: MemoryRecord, ctx: MemoryContext): void {
    this.next('append', ctx, (d) =>
      d.role !== record.role || d.chars !== record.content.length
        ? `memory append of a ${record.role} record of ${record.content.length} chars, recorded ${String(d.role)} of ${String(d.chars)}`
        : undefined,
    );
  }

  retrieve(query: string, k: number, ctx: MemoryContext): MemoryRecord[] {
    const rec = this.next('retrieve', ctx, (d) =>
      d.query !== query || d.k !== k
        ? `memory retrieve(${JSON.stringify(query)}, ${k}), recorded retrieve(${JSON.stringify(d.query)}, ${String(d.k)})`
        : undefined,
    );
    const records = MemoryRecordSchema.array().safeParse(rec?.data.records);
    if (rec && !records.success)
      throw new Error(
        `the trace's memory retrieve at step ${rec.step} has no records to serve (it was written before records were traced)`,
      );
    return records.success ? records.data : [];
  }

  summarize(ctx: MemoryContext): string {
    const rec = this.next('summarize', ctx, () => undefined);
    return typeof rec?.data.summary === 'string' ? rec.data.summary : '';
  }

  evict(ctx: MemoryContext): number {
    const rec = this.next('evict', ctx, () => undefined);
    return typeof rec?.data.evicted === 'number' ? rec.data.evicted : 0;
  }

  /** A replay starts where the recording did. */
  reset(): void {
    this.cursor = 0;
  }
}
