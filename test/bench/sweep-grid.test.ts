import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseGridAxis, sweepCells } from '../../src/bench/index.js';
import { TrialSlots } from '../../src/bench/trial-slots.js';
import { findBaseline } from '../../src/bench/sweep-grid.js';

describe('sweep grid', () => {
  it('cells are the cross product, first axis slowest; names are file-safe and distinct', () => {
    const cells = sweepCells([parseGridAxis('model=openai:a,openai:b'), parseGridAxis('agent.temperature=0, 0.7')]);
    expect(cells.map((c) => c.label)).toEqual([
      'model=openai:a,agent.temperature=0',
      'model=openai:a,agent.temperature=0.7',
      'model=openai:b,agent.temperature=0',
      'model=openai:b,agent.temperature=0.7',
    ]);
    for (const c of cells) expect(c.name).toMatch(/^[A-Za-z0-9._-]+$/);
    expect(new Set(cells.map((c) => c.name)).size).toBe(4);
    expect(findBaseline(cells, undefined)).toBe(cells[0]);
    expect(findBaseline(cells, 'agent.temperature=0.7,model=openai:b')).toBe(cells[3]);
    expect(findBaseline(cells, cells[2].name)).toBe(cells[2]);
    expect(() => findBaseline(cells, 'model=openai:c')).toThrow('no such cell');
    expect(() => sweepCells([])).toThrow('at least one --grid');
  });

  it('any grid gives prod(|values|) cells with distinct names (property)', () => {
    const value = fc
      .string({ minLength: 1, maxLength: 5 })
      .filter((v) => !v.includes(',') && v.trim() === v && v.length > 0);
    const axis = fc.tuple(
      fc.constantFrom('a', 'b.c', 'model', 'agent.x'),
      fc.uniqueArray(value, { minLength: 1, maxLength: 3 }),
    );
    fc.assert(
      fc.property(fc.uniqueArray(axis, { minLength: 1, maxLength: 3, selector: ([k]) => k }), (axes) => {
        const cells = sweepCells(axes.map(([key, values]) => parseGridAxis(`${key}=${values.join(',')}`)));
        expect(cells).toHaveLength(axes.reduce((n, [, v]) => n * v.length, 1));
        expect(new Set(cells.map((c) => c.name)).size).toBe(cells.length);
        expect(new Set(cells.map((c) => c.label)).size).toBe(cells.length);
      }),
    );
  });
});

describe('TrialSlots', () => {
  it('never lets more than size holders in at once, and serves every waiter', async () => {
    const slots = new TrialSlots(3);
    let inside = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const release = await slots.acquire();
        inside++;
        most = Math.max(most, inside);
        await new Promise((r) => setTimeout(r, i % 3));
        inside--;
        release();
        release(); // a second call gives nothing back twice
      }),
    );
    expect(most).toBe(3);
    expect(() => new TrialSlots(0)).toThrow(RangeError);
  });
});
