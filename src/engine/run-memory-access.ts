import type { HookEvent, Memory, MemoryAccess, MemoryContext, MemoryRecord } from '../core/index.js';

/**
 * The run's memory as agents use it: each call gets the run's context and is reported as a `memory` event
 * (hooks, trace, stream), so what an agent wrote and read is part of the record of the run.
 */
export class RunMemoryAccess implements MemoryAccess {
  constructor(
    private readonly memory: Memory,
    private readonly context: () => MemoryContext,
    private readonly events: { emit(event: HookEvent): unknown },
  ) {}

  get name(): string {
    return this.memory.name;
  }

  private note(
    op: Extract<HookEvent, { type: 'memory' }>['op'],
    ctx: MemoryContext,
    data: Record<string, unknown>,
  ): void {
    this.events.emit({ type: 'memory', step: ctx.step, memory: this.memory.name, op, data });
  }

  async reset(): Promise<void> {
    const ctx = this.context();
    await this.memory.reset(ctx);
    this.note('reset', ctx, {});
  }

  async append(record: Omit<MemoryRecord, 'step'> & { step?: number }): Promise<void> {
    const ctx = this.context();
    const full: MemoryRecord = { ...record, step: record.step ?? ctx.step };
    await this.memory.append(full, ctx);
    this.note('append', ctx, { role: full.role, chars: full.content.length, recordStep: full.step });
  }

  async retrieve(query: string, k: number): Promise<MemoryRecord[]> {
    const ctx = this.context();
    const records = await this.memory.retrieve(query, k, ctx);
    // The records themselves: a replay serves them back, so it sees what the run saw whatever the memory holds now.
    this.note('retrieve', ctx, { query, k, returned: records.length, steps: records.map((r) => r.step), records });
    return records;
  }

  async summarize(): Promise<string> {
    const ctx = this.context();
    const summary = await this.memory.summarize(ctx);
    this.note('summarize', ctx, { chars: summary.length, summary });
    return summary;
  }

  async evict(): Promise<number> {
    const ctx = this.context();
    const evicted = await this.memory.evict(ctx);
    this.note('evict', ctx, { evicted });
    return evicted;
  }
}
