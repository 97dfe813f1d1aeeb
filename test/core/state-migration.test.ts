import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { migrateState, type StateMigration } from '../../src/core/index.js';

describe('migrateState', () => {
  it('chains migrations, refuses newer states, and refuses a migration that returns no object', () => {
    const steps: StateMigration[] = [
      { from: 2, to: 3, migrate: (s) => ({ ...s, c: (s.b as number) + 1 }) },
      { from: 1, to: 2, migrate: (s) => ({ ...s, b: (s.a as number) + 1 }) },
    ];
    expect(migrateState({ a: 1 }, 1, 3, steps, 'A')).toEqual({ a: 1, b: 2, c: 3 });
    expect(() => migrateState({}, 3, 2, steps, 'A')).toThrow(
      "the recorded state is version 3 of A's state schema, newer than this agent's version 2",
    );
    expect(() => migrateState({}, 1, 2, [{ from: 1, to: 2, migrate: () => null as never }], 'A')).toThrow(
      "A's state migration 1->2 returned object, not a state object",
    );
  });

  it('property: a chain of renames from any version lands on the last names', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 0, max: 8 }), fc.integer(), (from, extra, v) => {
        const to = from + extra;
        const chain: StateMigration[] = [];
        for (let k = 1; k < to; k++)
          chain.push({ from: k, to: k + 1, migrate: ({ [`f${k}`]: x, ...s }) => ({ ...s, [`f${k + 1}`]: x }) });
        expect(migrateState({ [`f${from}`]: v }, from, to, chain, 'A')).toEqual({ [`f${to}`]: v });
      }),
    );
  });
});
