import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTaskIds, tauSuiteRef } from '../../src/cli/tau-bench-run.js';

describe('tau-bench run arguments', () => {
  it('--task-ids takes indexes and inclusive ranges, and names what it cannot read', () => {
    expect(parseTaskIds('0, 3,10-12,007')).toEqual(['0', '3', '10', '11', '12', '7']);
    expect(() => parseTaskIds('5-2')).toThrow(/the range 5-2 goes backwards/);
    expect(() => parseTaskIds('a')).toThrow(/"a" is not a task index/);
    expect(() => parseTaskIds(',')).toThrow(/no task ids/);
  });

  it('tau-bench/<domain> names the built-in suite unless a path of that name exists', () => {
    const dir = mkdtempSync(join(tmpdir(), 'qitos-tau-ref-'));
    try {
      expect(tauSuiteRef('tau-bench/retail', dir)).toEqual({ domain: 'retail' });
      expect(tauSuiteRef('tau-bench/airline', dir)).toEqual({ domain: 'airline' });
      expect(tauSuiteRef('tau-bench/telecom', dir)).toBeUndefined();
      mkdirSync(join(dir, 'tau-bench/retail'), { recursive: true });
      expect(tauSuiteRef('tau-bench/retail', dir)).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
