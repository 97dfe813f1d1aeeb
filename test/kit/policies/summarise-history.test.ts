import { describe, expect, it } from 'vitest';
import {
  applySummary,
  isUserTurn,
  planSummary,
  renderTranscript,
  summaryMessage,
  estimateMessageTokens,
} from '../../../src/kit/policies/index.js';
import { assistantMsg, userMsg } from '../../helpers/policies-fixtures.js';

describe('planSummary', () => {
  it('keeps the first and the last user turn and a recent tail of whole messages; replaces the rest', () => {
    const h = [
      userMsg('task'),
      assistantMsg('a'.repeat(400)),
      userMsg('Error (parse) in step 2: bad', true),
      assistantMsg('b'.repeat(400)),
      userMsg('now do this'),
      assistantMsg('c'.repeat(400)),
      assistantMsg('d'.repeat(40)),
    ];
    const plan = planSummary(h, { keepRecentTokens: 30, keepFirstUser: true, tokens: estimateMessageTokens })!;
    expect(plan).toEqual({ replace: [1, 2, 3, 5], keep: [0, 4], tailStart: 6 });
    const s = summaryMessage('S', { auto: true, overflow: true });
    expect(applySummary(h, plan, s)).toEqual([h[0], h[4], s, h[6]]);
    expect(planSummary(h, { keepRecentTokens: 30, keepFirstUser: false, tokens: estimateMessageTokens })!.keep).toEqual(
      [4],
    );
  });

  it('keeps earlier summaries in place within keepSummaryTokens and appends the new one after them; merges them above it', () => {
    const s1 = summaryMessage('S1 ' + 'k'.repeat(200), { auto: true, overflow: true });
    const h = [userMsg('task'), s1, assistantMsg('a'.repeat(400)), assistantMsg('b'.repeat(400)), assistantMsg('c')];
    const opts = { keepRecentTokens: 5, keepFirstUser: true, tokens: estimateMessageTokens };
    const kept = planSummary(h, { ...opts, keepSummaryTokens: 1_000 })!;
    expect(kept).toEqual({ replace: [2, 3], keep: [0, 1], tailStart: 4 });
    const s2 = summaryMessage('S2', { auto: true, overflow: true });
    // the head (task, first summary) is the same objects: a provider's cached prefix survives the second summary
    expect(applySummary(h, kept, s2)).toEqual([h[0], s1, s2, h[4]]);
    expect(planSummary(h, { ...opts, keepSummaryTokens: 10 })).toEqual({ replace: [1, 2, 3], keep: [0], tailStart: 4 });
    expect(planSummary(h, opts)!.replace).toEqual([1, 2, 3]); // default: merged, as before
    // a summary after messages it would have to come before is merged too (the order of the history stays true)
    const late = [userMsg('task'), assistantMsg('a'.repeat(400)), s1, assistantMsg('b'.repeat(400)), assistantMsg('c')];
    expect(planSummary(late, { ...opts, keepSummaryTokens: 1_000 })!.replace).toEqual([1, 2, 3]);
  });

  it('has nothing to replace when only kept messages precede the tail', () => {
    expect(
      planSummary([userMsg('x'.repeat(10_000))], {
        keepRecentTokens: 10,
        keepFirstUser: true,
        tokens: estimateMessageTokens,
      }),
    ).toBeUndefined();
  });

  it('tells user turns from kernel notes and summaries', () => {
    expect(isUserTurn(userMsg('hi'))).toBe(true);
    expect(isUserTurn(userMsg('Error', true))).toBe(false);
    expect(isUserTurn(summaryMessage('s', { auto: true, overflow: false }))).toBe(false);
    expect(isUserTurn(assistantMsg('x'))).toBe(false);
  });
});

describe('renderTranscript', () => {
  it('cuts long outputs, and when still too long leaves out the oldest messages (never earlier summaries) and says so', () => {
    const old = summaryMessage('EARLIER SUMMARY', { auto: true, overflow: true });
    const h = [
      old,
      ...Array.from({ length: 10 }, (_, i) =>
        assistantMsg(`msg ${i} ` + 'x'.repeat(300), [{ tool: 'read', args: { i }, output: 'y'.repeat(50_000) }]),
      ),
    ];
    const t = renderTranscript(h, 8_000);
    expect(t.text.length).toBeLessThanOrEqual(8_000);
    expect(t.omitted).toBeGreaterThan(0);
    expect(t.text).toContain(`[${t.omitted} older messages left out for length]`);
    expect(t.text).toContain('EARLIER SUMMARY');
    expect(t.text).toContain('msg 9 ');
    expect(t.text).not.toContain('msg 0 ');
    expect(t.text).toContain('more characters]');
    const all = renderTranscript(h, 1_000_000);
    expect(all.omitted).toBe(0);
    expect(all.text).toContain('[tool read({"i":0})] -> yyy');
  });
});
