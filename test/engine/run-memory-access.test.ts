import { describe, expect, it } from 'vitest';
import {
  AgentModule,
  Engine,
  baseState,
  decide,
  type AgentContext,
  type Decision,
  type Memory,
  type MemoryRecord,
  type State,
  type Task,
} from '../../src/index.js';
import { readTrace } from '../../src/trace/index.js';
import { tempDir } from '../helpers/kernel-fixtures.js';

/** The smallest real memory: records in a list, retrieval by word overlap, eviction of all but the last `keep`. */
class ListMemory implements Memory {
  readonly name = 'list';
  records: MemoryRecord[] = [];
  resets = 0;
  constructor(private readonly keep = 2) {}
  append(record: MemoryRecord) {
    this.records.push(record);
  }
  retrieve(query: string, k: number) {
    const words = new Set(query.split(/\s+/));
    return this.records.filter((r) => r.content.split(/\s+/).some((w) => words.has(w))).slice(-k);
  }
  summarize() {
    return this.records.map((r) => r.content).join('; ');
  }
  evict() {
    const n = Math.max(0, this.records.length - this.keep);
    this.records.splice(0, n);
    return n;
  }
  reset() {
    this.records = [];
    this.resets++;
  }
}

/** Writes a note each step, reads them back on the third, then answers with what it found. */
class NotingAgent extends AgentModule<State> {
  initState(task: Task) {
    return baseState(task, 10);
  }
  override async decide(state: State, _o: unknown, ctx: AgentContext): Promise<Decision> {
    const memory = ctx.memory!;
    await memory.append({ role: 'agent', content: `note ${state.step} about apples` });
    if (state.step < 3) return decide.wait();
    const found = await memory.retrieve('apples', 2);
    const evicted = await memory.evict();
    return decide.final(`${found.map((r) => r.step).join(',')} | ${await memory.summarize()} | evicted ${evicted}`);
  }
}

describe('run memory', () => {
  it("agents use the run's memory through ctx.memory; every read and write is a memory event in the trace", async () => {
    const dir = await tempDir();
    const memory = new ListMemory();
    const r = await new Engine({ agent: new NotingAgent(), memory, trace: { dir } }).run('remember');
    expect(r.finalResult).toBe('2,3 | note 2 about apples; note 3 about apples | evicted 1');
    expect(memory.resets).toBe(1);
    const events = (await readTrace(r.traceDir!)).events.filter((e) => e.type === 'memory');
    expect(events.map((e) => `${e.step}:${(e.data as { op: string }).op}`)).toEqual([
      '0:reset',
      '1:append',
      '2:append',
      '3:append',
      '3:retrieve',
      '3:evict',
      '3:summarize',
    ]);
    expect(events[4].data).toEqual({
      step: 3,
      memory: 'list',
      op: 'retrieve',
      data: {
        query: 'apples',
        k: 2,
        returned: 2,
        steps: [2, 3],
        records: [
          { step: 2, role: 'agent', content: 'note 2 about apples' },
          { step: 3, role: 'agent', content: 'note 3 about apples' },
        ],
      },
    });
    expect(events[1].data).toMatchObject({
      op: 'append',
      data: { role: 'agent', chars: 'note 1 about apples'.length, recordStep: 1 },
    });
  });

  it("a memory factory gives every run its own memory, so concurrent runs do not read each other's notes", async () => {
    const made: ListMemory[] = [];
    const engine = new Engine({
      agent: new NotingAgent(),
      memory: () => (made[made.length] = new ListMemory(10)),
      trace: false,
    });
    const results = await Promise.all([engine.run('a'), engine.run('b')]);
    expect(made).toHaveLength(2);
    for (const r of results)
      expect(r.finalResult).toBe('2,3 | note 1 about apples; note 2 about apples; note 3 about apples | evicted 0');
  });
});
