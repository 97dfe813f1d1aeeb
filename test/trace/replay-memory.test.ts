import { describe, expect, it } from 'vitest';
import type { EventRecord } from '../../src/index.js';
import { ReplayDriftError, ReplayMemory } from '../../src/trace/index.js';
import { memoryContext } from '../kit/memory/memory-fixtures.js';

const ev = (seq: number, step: number, op: string, data: Record<string, unknown>): EventRecord => ({
  seq,
  ts: 0,
  step,
  phase: 'decide',
  type: 'memory',
  data: { step, memory: 'notes', op, data },
});
const EVENTS = [
  ev(1, 0, 'reset', {}),
  ev(2, 1, 'append', { role: 'lesson', chars: 5, recordStep: 1 }),
  ev(3, 2, 'retrieve', {
    query: 'rate',
    k: 1,
    returned: 1,
    steps: [1],
    records: [{ step: 1, role: 'lesson', content: 'r=1.1' }],
  }),
  ev(4, 2, 'summarize', { chars: 3, summary: 'one' }),
];

describe('ReplayMemory', () => {
  it("serves the recorded reads in order and takes the recorded memory's name", async () => {
    const m = new ReplayMemory(EVENTS);
    const ctx = memoryContext();
    expect(m.name).toBe('notes');
    m.append({ step: 1, role: 'lesson', content: 'r=1.1' }, ctx);
    expect(m.retrieve('rate', 1, ctx)).toEqual([{ step: 1, role: 'lesson', content: 'r=1.1' }]);
    expect(m.summarize(ctx)).toBe('one');
    expect(m.drifts).toEqual([]);
  });

  it('a different query, op or record is drift: an error naming it, or listed with allowDrift', () => {
    const ctx = memoryContext();
    const strict = new ReplayMemory(EVENTS);
    strict.append({ step: 1, role: 'lesson', content: 'r=1.1' }, ctx);
    expect(() => strict.retrieve('other', 1, ctx)).toThrow(ReplayDriftError);
    expect(() => new ReplayMemory(EVENTS).retrieve('rate', 1, ctx)).toThrow(
      /memory retrieve where the recording has append/,
    );
    const loose = new ReplayMemory(EVENTS, { allowDrift: true });
    loose.append({ step: 1, role: 'lesson', content: 'longer text' }, ctx);
    expect(loose.retrieve('rate', 1, ctx)).toHaveLength(1);
    loose.summarize(ctx);
    loose.evict(ctx);
    expect(loose.drifts.map((d) => d.message)).toEqual([
      'replay drift at step 1: memory append of a lesson record of 11 chars, recorded lesson of 5',
      'replay drift at step 1: a memory evict the recording does not have',
    ]);
  });
});
