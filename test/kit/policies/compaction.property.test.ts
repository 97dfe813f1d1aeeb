import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HistoryEstimator, compaction, contextLimits, isUserTurn } from '../../../src/kit/policies/index.js';
import { ScriptedModel } from '../../../src/models/index.js';
import { toModelMessages, type Message, type State } from '../../../src/index.js';
import { assistantMsg, policyCtx, runOf, stateWith, userMsg } from '../../helpers/policies-fixtures.js';

/** A random history: a short task, then assistant steps with text and tool calls, some user turns and kernel notes. */
const history = fc
  .array(
    fc.oneof(
      {
        weight: 8,
        arbitrary: fc.record({
          kind: fc.constant('a' as const),
          text: fc.nat(2_000),
          calls: fc.array(fc.record({ tool: fc.constantFrom('read', 'bash', 'skill'), size: fc.nat(4_000) }), {
            maxLength: 3,
          }),
        }),
      },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('u' as const), size: fc.nat(300) }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('n' as const), size: fc.nat(300) }) },
    ),
    { minLength: 1, maxLength: 60 },
  )
  .map((items) => {
    const h: Message[] = [userMsg('the task')];
    items.forEach((it, i) => {
      if (it.kind === 'a')
        h.push(
          assistantMsg(
            't'.repeat(it.text),
            it.calls.map((c, j) => ({ tool: c.tool, args: { i, j }, output: `${i}.${j}:` + 'o'.repeat(c.size) })),
          ),
        );
      else if (it.kind === 'u') h.push(userMsg(`question ${i} ` + 'q'.repeat(it.size)));
      else h.push(userMsg(`Error in step ${i}: ` + 'e'.repeat(it.size), true));
    });
    return h;
  });

/** The default headroom, or one from none (summarise only when pruning is not enough) to half the usable context. */
const headroom = fc.oneof(fc.constant(undefined), fc.double({ min: 0, max: 0.5, noNaN: true }));

const maxOutput = fc.oneof(fc.constant(undefined), fc.integer({ min: 100, max: 3_000 }), fc.constant(1_000_000));

describe('compaction properties', () => {
  it('after compaction the history fits, keeps the task and the last user turn, and has no tool result without its call', async () => {
    let compacted = 0;
    let summarised = 0;
    await fc.assert(
      fc.asyncProperty(
        history,
        fc.integer({ min: 1_500, max: 12_000 }),
        maxOutput,
        headroom,
        async (h, window, out, room) => {
          const snapshot = JSON.stringify(h);
          const state = stateWith(h);
          const summariser = new ScriptedModel(['Goal: the task. Progress: many steps.'], {
            loop: true,
            recordRequests: false,
          });
          const policy = runOf(compaction({ model: summariser, ...(room === undefined ? {} : { headroom: room }) }));
          const modelInfo = {
            provider: 'p',
            model: 'm',
            contextWindow: window,
            ...(out ? { maxOutputTokens: out } : {}),
          };
          const ctx = policyCtx(state, { modelInfo, runId: `r${Math.random()}` });
          const next = (await policy.reduce!(ctx)) as State | undefined;
          const usable = contextLimits({}, modelInfo)!.usable;
          const before = new HistoryEstimator().total(h);
          // The history passed in is never mutated.
          expect(JSON.stringify(h)).toBe(snapshot);
          if (before < usable) {
            expect(next).toBeUndefined();
            return;
          }
          expect(ctx.events.filter((e) => e.type === 'compaction:failed')).toEqual([]);
          expect(next).toBeDefined();
          compacted++;
          if (ctx.events.some((e) => e.type === 'compaction:summary')) summarised++;
          const m = next!.messages;
          // Fits.
          expect(new HistoryEstimator().total(m)).toBeLessThan(usable);
          // Keeps the task (first user turn) and the last user turn, verbatim.
          const turns = h.filter(isUserTurn);
          expect(m).toContain(turns[0]);
          expect(m).toContain(turns[turns.length - 1]);
          // Order is kept: the original messages (or their pruned copies) appear in their original order.
          const pos = new Map(h.map((x, i) => [x.info.id, i]));
          const order = m.filter((x) => pos.has(x.info.id)).map((x) => pos.get(x.info.id)!);
          expect(order).toEqual([...order].sort((a, b) => a - b));
          // Never a tool result without its call.
          const mm = toModelMessages(m);
          mm.forEach((x, i) => {
            if (x.role !== 'tool') return;
            const prev = mm[i - 1];
            expect(prev?.role).toBe('assistant');
            const calls = new Set(
              prev.role === 'assistant'
                ? prev.content.filter((p) => p.type === 'tool-call').map((p) => (p as { callId: string }).callId)
                : [],
            );
            for (const r of x.content) expect(calls.has(r.callId)).toBe(true);
          });
          // Skill outputs that survive are never pruned.
          for (const msg of m)
            for (const p of msg.parts)
              if (p.type === 'tool' && p.tool === 'skill' && p.state.status === 'completed')
                expect(p.state.time.compacted).toBeUndefined();
        },
      ),
      { numRuns: 400 },
    );
    // The property is not vacuous: most histories needed a compaction, and both prune-only and summary cases occur.
    expect(compacted).toBeGreaterThan(140);
    // (400 runs: with 200, one seed gave exactly 10 prune-only cases, at this bound.)
    expect(summarised).toBeGreaterThan(10);
    expect(compacted - summarised).toBeGreaterThan(10);
  });
});
