import { describe, expect, it } from 'vitest';
import { grepTool } from '../../../src/kit/tools/index.js';
import { callTool, envCases } from '../../helpers/qitos-env-fixtures.js';

// `(a+)+$` against "aaaa…a!" backtracks exponentially: 26 a's take seconds, 40 would take days.
const CATASTROPHIC = '(a+)+$';
const evilLine = (n: number) => `${'a'.repeat(n)}!`;

describe.each(envCases)('grep with a catastrophic pattern ($name)', (kind) => {
  it('is stopped at its deadline with an error naming the pattern and the file, and the event loop keeps running', async () => {
    const ws = kind.make({ 'ok.txt': 'aaa\n', 'src/evil.txt': `first line\n${evilLine(40)}\n` });
    try {
      // A timer due long before the deadline: it fires before the call ends only if the main thread is free
      // meanwhile (a regex on the main thread would hold it until the match gave up, days from now).
      let fired = false;
      setTimeout(() => (fired = true), 100);
      const r = await callTool(grepTool({ matchTimeoutMs: 400 }), { pattern: CATASTROPHIC }, ws.env);
      expect(fired).toBe(true);
      expect(r.status).toBe('error');
      expect(r.seen).toMatch(
        /^the pattern \/\(a\+\)\+\$\/ ran for more than 400 ms and was stopped, at (ok\.txt line 1|src\/evil\.txt line [12])\./,
      );
      expect(r.seen).toMatch(/backtrack/);
      // One file alone: the error names it.
      const one = await callTool(
        grepTool({ matchTimeoutMs: 400 }),
        { pattern: CATASTROPHIC, path: 'src/evil.txt' },
        ws.env,
      );
      expect(one.seen).toMatch(
        /and was stopped, at src\/evil\.txt line [12]\. It probably backtracks catastrophically/,
      );
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
      const r = await callTool(grepTool({ matchTimeoutMs: 60_000 }), { pattern: CATASTROPHIC }, ws.env, {
        signal: ac.signal,
      });
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
