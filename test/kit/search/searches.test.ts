import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Engine, decide, type SearchContext, type State } from '../../../src/index.js';
import { beamSearch, bestFirstSearch, greedySearch, treeSearch } from '../../../src/kit/search/index.js';
import { readTrace } from '../../../src/trace/index.js';
import { tempDir } from '../../helpers/kernel-fixtures.js';
import { PathAgent, type PathState } from './path-agent.js';

describe('searches over branch decisions', () => {
  it('greedy follows the best-scored child into a dead end and gives up there', async () => {
    const r = await new Engine({ agent: new PathAgent(), search: greedySearch(), trace: false }).run('find G');
    expect(r.finalResult).toBe('stuck at A2');
  });

  it(
    'best-first backtracks to the state of an earlier step when the frontier holds a better ' +
      'candidate, and the trace records every candidate and score',
    async () => {
      const dir = await tempDir();
      const r = await new Engine<PathState>({ agent: new PathAgent(), search: bestFirstSearch(), trace: { dir } }).run(
        'find G',
      );
      expect(r.finalResult).toBe('S>B>G');
      expect(r.state.path).toEqual(['S', 'B', 'G']);
      const search = r.state.metadata.search as { backtracks: number; frontier: unknown[] };
      expect(search.backtracks).toBe(1);
      const steps = (await readTrace(r.traceDir!)).steps;
      expect(steps[0].branch).toMatchObject({
        search: 'best-first',
        scores: [0.9, 0.5],
        chosen: { from: 'step', index: 0, fromStep: 1 },
        frontier: 1,
      });
      // Step 2 proposes A1 (0.1) and A2 (0.2): B (0.5, from step 1) is better, so the run goes back to step 1's state.
      expect(steps[1].branch).toMatchObject({
        scores: [0.1, 0.2],
        chosen: { from: 'frontier', index: 1, fromStep: 1 },
      });
      expect(steps[1].decision).toMatchObject({ mode: 'act', actions: [{ name: 'move', args: { to: 'B' } }] });
      const events = (await readTrace(r.traceDir!)).events.filter((e) => e.type === 'search');
      expect(events).toHaveLength(3);
    },
  );

  it('a beam of width 1 keeps no alternative, so it cannot backtrack; width 2 can', async () => {
    expect(
      (await new Engine({ agent: new PathAgent(), search: beamSearch({ width: 1 }), trace: false }).run('x'))
        .finalResult,
    ).toBe('stuck at A2');
    expect(
      (await new Engine({ agent: new PathAgent(), search: beamSearch({ width: 2 }), trace: false }).run('x'))
        .finalResult,
    ).toBe('S>B>G');
    expect(() => beamSearch({ width: 0 })).toThrow(/width must be a positive integer, got 0/);
  });

  it('tree search prefers an action it has not tried when scores are close (the novelty bonus)', async () => {
    const s = treeSearch<State>({ bonus: 0.5 });
    const ctx = (explored: Record<string, number>): SearchContext<State> => ({
      runId: 'r',
      step: 3,
      state: {} as State,
      priors: undefined,
      search: { frontier: [], explored, backtracks: 0 },
      signal: new AbortController().signal,
      callModel: () => Promise.reject(new Error('no')),
    });
    const a = decide.call('move', { to: 'A' });
    const b = decide.call('move', { to: 'B' });
    const scored = [
      { index: 0, candidate: a, score: 0.6 },
      { index: 1, candidate: b, score: 0.5 },
    ];
    expect(s.select(scored, ctx({}))).toMatchObject({ from: 'step', index: 0 });
    expect(s.select(scored, ctx({ 'move({"to":"A"})': 3 }))).toMatchObject({ from: 'step', index: 1 });
  });

  it("one search object serves concurrent runs without sharing a frontier (it lives in each run's state)", async () => {
    const search = bestFirstSearch<State>();
    const engine = new Engine({ agent: new PathAgent(), search, trace: false });
    const results = await Promise.all([engine.run('a'), engine.run('b'), engine.run('c')]);
    for (const r of results) {
      expect(r.finalResult).toBe('S>B>G');
      expect((r.state.metadata.search as { backtracks: number }).backtracks).toBe(1);
    }
  });

  it('a scorer that returns the wrong number of scores ends the run with an error naming the search', async () => {
    const bad = { ...greedySearch<State>(), name: 'bad', score: () => [1] };
    const r = await new Engine({ agent: new PathAgent(), search: bad, trace: false }).run('x');
    expect(r.stopReason).toBe('unrecoverable_error');
    expect(r.stopMessage).toMatch(/search bad: score must return one number per candidate \(2\)/);
  });

  it('property: best-first acts on the highest score among this step and the frontier; the frontier keeps the rest up to the cap', () => {
    const entry = fc.record({
      step: fc.integer({ min: 1, max: 4 }),
      index: fc.nat({ max: 5 }),
      score: fc.double({ min: -5, max: 5, noNaN: true }),
    });
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -5, max: 5, noNaN: true }), { minLength: 1, maxLength: 6 }),
        fc.array(entry, { maxLength: 6 }),
        fc.integer({ min: 0, max: 8 }),
        (scores, old, cap) => {
          const s = bestFirstSearch<State>({ cap });
          const frontier = old.map((e) => ({ ...e, candidate: decide.final(`old ${e.step}.${e.index}`) }));
          const scored = scores.map((score, index) => ({ index, candidate: decide.final(`new ${index}`), score }));
          const ctx: SearchContext<State> = {
            runId: 'r',
            step: 5,
            state: {} as State,
            priors: undefined,
            search: { frontier, explored: {}, backtracks: 0 },
            signal: new AbortController().signal,
            callModel: () => Promise.reject(new Error('no')),
          };
          const selected = s.select(scored, ctx);
          const choice = { ...selected, frontier: s.prune!(selected.frontier, ctx) };
          const best = Math.max(...scores, ...old.map((e) => e.score));
          const chosenScore = choice.from === 'step' ? scores[choice.index] : choice.entry.score;
          expect(chosenScore).toBe(best);
          if (choice.from === 'frontier') expect(Math.max(...scores)).toBeLessThan(best);
          expect(choice.frontier.length).toBe(Math.min(cap, scores.length + old.length - 1));
          for (const e of choice.frontier) expect(e.score).toBeLessThanOrEqual(chosenScore);
        },
      ),
    );
  });
});
