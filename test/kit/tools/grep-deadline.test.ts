import { describe, expect, it } from 'vitest';
import { grepTool } from '../../../src/kit/tools/index.js';
import { callTool, envCases } from '../../helpers/qitos-env-fixtures.js';

// `(a+)+$` against "aaaa…a!" backtracks exponentially: 26 a's take seconds, 40 would take days.
const CATASTROPHIC = '(a+)+$';
const evilLine = (n: number) => `${'a'.repeat(n)}!`;

/** Counts ticks of a 10 ms interval while `fn` runs: a blocked event loop counts none. */
async function ticksDuring<T>(fn: () => Promise<T>): Promise<{ value: T; ticks: number; ms: number }> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 10);
  const t0 = Date.now();
  try {
    const value = await fn();
    return { value, ticks, ms: Date.now() - t0 };
  } finally {
    clearInterval(timer);
  }
}

describe.each(envCases)('grep with a catastrophic pattern ($name)', (kind) => {
  it('is stopped at its deadline with an error naming the pattern and the file, and the event loop keeps running', async () => {
    const ws = kind.make({ 'ok.txt': 'aaa\n', 'src/evil.txt': `first line\n${evilLine(40)}\n` });
    try {
      const { value: r, ticks, ms } = await ticksDuring(() => callTool(grepTool({ matchTimeoutMs: 400 }), { pattern: CATASTROPHIC }, ws.env));
      expect(r.status).toBe('error');
      expect(r.seen).toMatch(/^the pattern \/\(a\+\)\+\$\/ ran for more than 400 ms and was stopped, at src\/evil\.txt line 2\./);
      expect(r.seen).toMatch(/backtrack/);
      expect(ms).toBeLessThan(5000);
      // The interval kept firing while the regex ran: the main thread was never blocked.
      expect(ticks).toBeGreaterThanOrEqual(Math.floor(400 / 10 / 4));
    } finally {
      ws.cleanup();
    }
  });

  it('an abort of the run stops the match at once', async () => {
    const ws = kind.make({ 'evil.txt': evilLine(40) });
    try {
      const ac = new AbortController();
      setTimeout(() => ac.abort(), 200);
      const t0 = Date.now();
      const r = await callTool(grepTool({ matchTimeoutMs: 60_000 }), { pattern: CATASTROPHIC }, ws.env, { signal: ac.signal });
      expect(r.status).toBe('error');
      expect(r.seen).toMatch(/aborted/);
      expect(Date.now() - t0).toBeLessThan(3000);
    } finally {
      ws.cleanup();
    }
  });

  it('matches past the 10 000th character of a long line (no silent cut)', async () => {
    const ws = kind.make({ 'min.js': `${'x'.repeat(50_000)}NEEDLE${'y'.repeat(10)}\n` });
    try {
      const r = await callTool(grepTool({ maxLineLength: 20 }), { pattern: 'NEEDLE' }, ws.env);
      expect(r.status).toBe('success');
      expect(r.seen).toBe('min.js:1: xxxxxxxxxxxxxxxxxxxx… [cut]');
    } finally {
      ws.cleanup();
    }
  });
});
