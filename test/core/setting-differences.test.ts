import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { flattenSettings, formatSettingDifference, settingDifferences } from '../../src/core/index.js';

describe('settingDifferences', () => {
  it('names each differing leaf by its dotted path, in key order; arrays compare whole; key order does not matter', () => {
    const a = {
      model: { id: 'openai:x', params: { temperature: 0 } },
      engine: { maxSteps: 5 },
      tags: ['a', 'b'],
      same: { k: 1, j: 2 },
    };
    const b = { model: { id: 'openai:y', params: { temperature: 0, topP: 0.9 } }, tags: ['a'], same: { j: 2, k: 1 } };
    expect(settingDifferences(a, b)).toEqual([
      { path: 'engine.maxSteps', from: 5, to: undefined },
      { path: 'model.id', from: 'openai:x', to: 'openai:y' },
      { path: 'model.params.topP', from: undefined, to: 0.9 },
      { path: 'tags', from: ['a', 'b'], to: ['a'] },
    ]);
    expect(settingDifferences(a, b).map(formatSettingDifference)).toContain('engine.maxSteps: 5 -> (unset)');
    expect(settingDifferences({ p: true }, { p: { threshold: 3 } })).toEqual([
      { path: 'p', from: true, to: { threshold: 3 } },
    ]);
  });

  it('is empty exactly for equal JSON values, and every path it names is a leaf of one side (property)', () => {
    const json = fc.jsonValue({ maxDepth: 3 });
    fc.assert(
      fc.property(json, json, (a, b) => {
        const d = settingDifferences(a, b);
        expect(settingDifferences(a, structuredClone(a))).toEqual([]);
        if (JSON.stringify(a) === JSON.stringify(b)) expect(d).toEqual([]);
        for (const x of d) expect(x.from === undefined && x.to === undefined).toBe(false);
      }),
    );
  });

  it('flattenSettings lists every leaf', () => {
    expect(flattenSettings({ a: { b: 1, c: [1] }, d: null })).toEqual([
      { path: 'a.b', value: 1 },
      { path: 'a.c', value: [1] },
      { path: 'd', value: null },
    ]);
  });
});
