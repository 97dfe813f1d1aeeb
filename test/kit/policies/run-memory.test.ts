import { describe, expect, it } from 'vitest';
import { RunMemory } from '../../../src/kit/policies/index.js';

describe('RunMemory', () => {
  it('keeps one entry per run, resets on start, and evicts the least recently used run past its capacity', () => {
    let made = 0;
    const m = new RunMemory(() => ({ n: made++ }), 2);
    const a = m.get('a');
    expect(m.get('a')).toBe(a);
    expect(m.reset('a')).not.toBe(a);
    m.get('b');
    m.get('a'); // touch a: b is now the least recently used
    m.get('c');
    expect(m.size).toBe(2);
    const made0 = made;
    m.get('a');
    expect(made).toBe(made0); // a survived
    m.get('b');
    expect(made).toBe(made0 + 1); // b was evicted and is made anew
    m.delete('b');
    expect(m.size).toBe(1);
    expect(() => new RunMemory(() => 0, 0)).toThrow(/capacity/);
  });
});
