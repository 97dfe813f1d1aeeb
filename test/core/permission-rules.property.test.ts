import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  PermissionRules,
  expandHome,
  tokensMeet,
  matchWildcard,
  parsePermissionConfig,
  type PermissionAction,
} from '../../src/core/index.js';

const action = fc.constantFrom<PermissionAction>('allow', 'ask', 'deny');
// Text with the characters commands and paths use, regex metacharacters included (they must match literally).
const text = fc.string({
  unit: fc.constantFrom('a', 'b', '/', '.', ' ', '-', '(', ')', '+', '[', '$', '\\', '\n', 'é'),
  maxLength: 12,
});

/** A reference matcher, independent of the regular-expression compiler: a trailing " *" is optional (once). */
function refMatch(pattern: string, s: string): boolean {
  return plainMatch(pattern, s) || (pattern.endsWith(' *') && plainMatch(pattern.slice(0, -2), s));
}

/** Dynamic programming over the pattern: `*` any run, `?` one character, the rest literal. */
function plainMatch(pattern: string, s: string): boolean {
  const p = [...pattern];
  const t = [...s];
  const dp: boolean[][] = Array.from({ length: p.length + 1 }, () => new Array<boolean>(t.length + 1).fill(false));
  dp[0][0] = true;
  for (let i = 1; i <= p.length; i++) {
    for (let j = 0; j <= t.length; j++) {
      if (p[i - 1] === '*') dp[i][j] = dp[i - 1][j] || (j > 0 && dp[i][j - 1]);
      else if (j > 0) dp[i][j] = dp[i - 1][j - 1] && (p[i - 1] === '?' || p[i - 1] === t[j - 1]);
    }
  }
  return dp[p.length][t.length];
}

describe('permission patterns', () => {
  it('wildcards agree with a reference matcher: * any run (slashes, spaces, newlines too), ? one character, the rest literal', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', 'b', '*', '?', '/', '.', ' ', '(', '['), maxLength: 8 }),
        text,
        (pattern, s) => {
          expect(matchWildcard(pattern, s)).toBe(refMatch(pattern, s));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('a pattern with no wildcard matches only itself', () => {
    fc.assert(
      fc.property(text, text, (a, b) => {
        expect(matchWildcard(a, b)).toBe(a === b);
        expect(matchWildcard(a, a)).toBe(true);
      }),
    );
  });

  it('"git *" matches git alone and git with any arguments, not "gitk"', () => {
    expect(matchWildcard('git *', 'git')).toBe(true);
    expect(matchWildcard('git *', 'git status --short')).toBe(true);
    expect(matchWildcard('git *', 'gitk')).toBe(false);
    // only the last " *" is optional, once (a fast-check counterexample of an earlier reference matcher)
    expect(matchWildcard(' * *', '')).toBe(false);
    expect(matchWildcard(' * *', ' ')).toBe(true);
  });

  it('~ and $HOME expand to the home folder at the start of a pattern only', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('~', '$HOME', '${HOME}'),
        fc.stringMatching(/^[a-z/*]{0,10}$/),
        fc.constantFrom('/home/u', '/home/u/'),
        (prefix, rest, home) => {
          const tail = rest && !rest.startsWith('/') ? `/${rest}` : rest;
          expect(expandHome(prefix + tail, home)).toBe('/home/u' + tail);
          expect(expandHome('x' + prefix + tail, home)).toBe('x' + prefix + tail);
        },
      ),
    );
    expect(expandHome('~user/x', '/home/u')).toBe('~user/x');
    const rules = new PermissionRules({ read: { '*': 'allow', '~/.ssh/*': 'deny' } }, { home: '/home/u' });
    expect(rules.evaluate('read', [{ text: '/home/u/.ssh/id_rsa' }]).action).toBe('deny');
    expect(rules.evaluate('read', [{ text: 'notes/.ssh/x', absolute: '/home/u/.ssh/x' }]).action).toBe('deny');
    expect(rules.evaluate('read', [{ text: '/home/v/.ssh/id_rsa' }]).action).toBe('allow');
  });
});

describe('permission precedence', () => {
  it('the last matching rule wins, over keys and patterns in the order written; no match allows', () => {
    const rule = fc.record({
      key: fc.constantFrom('*', 'bash', 'ba?h', 'read'),
      pattern: fc.constantFrom('*', 'git *', 'rm *', 'ls', 'git status'),
      action,
    });
    fc.assert(
      fc.property(
        fc.array(rule, { maxLength: 8 }),
        fc.constantFrom('git status', 'rm -rf x', 'ls', 'cat f'),
        fc.constantFrom('bash', 'read'),
        (list, subject, key) => {
          // One key per rule keeps the written order exact (an object cannot repeat a key).
          const config = Object.fromEntries(
            list.map((r, i) => [`${r.key}${'*'.repeat(r.key.endsWith('*') ? i : 0)}`, { [r.pattern]: r.action }]),
          );
          const rules = new PermissionRules(config);
          const expected = [...rules.rules]
            .reverse()
            .find((r) => matchWildcard(r.key, key) && matchWildcard(r.pattern, subject));
          const got = rules.evaluate(key, [{ text: subject }]);
          expect(got.action).toBe(expected?.action ?? 'allow');
          expect(got.rule).toEqual(expected ?? null);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('over several subjects the most restrictive wins (deny, then ask, then allow)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a', 'b', 'c'), { minLength: 1, maxLength: 5 }),
        action,
        action,
        action,
        (subjects, a, b, c) => {
          const rules = new PermissionRules({ t: { a, b, c } });
          const rank = { allow: 0, ask: 1, deny: 2 };
          const worst = subjects
            .map((s) => ({ a, b, c })[s as 'a' | 'b' | 'c'])
            .reduce((x, y) => (rank[y] > rank[x] ? y : x));
          expect(
            rules.evaluate(
              't',
              subjects.map((s) => ({ text: s })),
            ).action,
          ).toBe(worst);
        },
      ),
    );
  });

  it('a plain action is one "*" rule; a string config is one rule for every tool', () => {
    expect(new PermissionRules({ bash: 'ask' }).rules).toEqual([{ key: 'bash', pattern: '*', action: 'ask' }]);
    expect(new PermissionRules('deny').evaluate('anything', []).action).toBe('deny');
    const r = new PermissionRules({ '*': 'ask', 'github_*': 'deny', read: 'allow' });
    expect(r.evaluate('github_create_issue', [{ text: 'github_create_issue' }]).action).toBe('deny');
    expect(r.evaluate('read', [{ text: 'src/a.ts' }]).action).toBe('allow');
    expect(r.evaluate('bash', [{ text: 'ls' }]).action).toBe('ask');
  });
});

describe('permission config validation', () => {
  it('names the key and the pattern that are wrong', () => {
    expect(() => parsePermissionConfig({ bash: { 'rm *': 'never' } })).toThrow(
      'permission.bash."rm *": expected "allow", "ask" or "deny", got "never"',
    );
    expect(() => parsePermissionConfig({ edit: 'yes' })).toThrow(
      'permission.edit: expected "allow", "ask" or "deny", got "yes"',
    );
    expect(() => parsePermissionConfig({ edit: ['a'] })).toThrow(
      'permission.edit: expected "allow", "ask" or "deny" or an object of patterns, got ["a"]',
    );
    expect(() => parsePermissionConfig({ 'bad key!': 'ask' })).toThrow('permission.bad key!: a key is a tool id');
    expect(() => parsePermissionConfig({ doom_loop: { x: 'ask' } })).toThrow(
      'permission.doom_loop: expected "allow", "ask" or "deny" (it has no patterns)',
    );
    expect(() => parsePermissionConfig(3)).toThrow(
      'permission: expected "allow", "ask" or "deny" or an object of rules by tool id, got 3',
    );
    expect(() => parsePermissionConfig({ read: { '': 'deny' } })).toThrow(
      'permission.read."": a pattern may not be empty',
    );
    const valid = { bash: { 'git *': 'allow', '*': 'ask' }, external_directory: 'deny', doom_loop: 'ask' } as const;
    expect(parsePermissionConfig(valid)).toEqual(valid);
  });
});

describe('subjects known only at run time (shapes)', () => {
  // Tokens: letters a and b, -1 for `*`, -2 for `?` (as the rules compile patterns).
  const tokens = fc.array(fc.constantFrom(97, 98, -1, -2), { maxLength: 4 });
  const asPattern = (t: number[]) => t.map((c) => (c === -1 ? '*' : c === -2 ? '?' : String.fromCharCode(c))).join('');

  it('two patterns meet exactly when some text matches both (against every text up to the length that decides)', () => {
    const words: string[] = [''];
    for (let len = 1; len <= 8; len++)
      for (let n = 0; n < 2 ** len; n++)
        words.push(n.toString(2).padStart(len, '0').replace(/0/g, 'a').replace(/1/g, 'b'));
    fc.assert(
      fc.property(tokens, tokens, (a, b) => {
        const both = words.some((w) => plainMatch(asPattern(a), w) && plainMatch(asPattern(b), w));
        expect(tokensMeet(a, b)).toBe(both);
      }),
      { numRuns: 500 },
    );
  });

  it('a command with an unknown part is never judged more leniently than any value of that part (property)', () => {
    const letter = fc.constantFrom('a', 'b', ' ');
    const pattern = fc
      .array(fc.constantFrom('a', 'b', ' ', '*', '?'), { minLength: 1, maxLength: 5 })
      .map((p) => p.join(''));
    fc.assert(
      fc.property(
        fc.array(fc.tuple(pattern, action), { minLength: 1, maxLength: 5 }),
        fc.array(
          fc.oneof(
            fc.array(letter, { minLength: 1, maxLength: 3 }).map((l) => l.join('')),
            fc.constant(null),
          ),
          {
            minLength: 1,
            maxLength: 4,
          },
        ),
        fc.array(
          fc.array(letter, { maxLength: 3 }).map((l) => l.join('')),
          { minLength: 4, maxLength: 4 },
        ),
        (rules, shape, fills) => {
          const r = new PermissionRules({ bash: Object.fromEntries(rules) });
          const judged = r.evaluate('bash', [{ text: shape.map((p) => p ?? '$X').join(''), shape }]);
          let k = 0;
          const concrete = shape.map((p) => (p === null ? fills[k++] : p)).join('');
          const actual = r.evaluate('bash', [{ text: concrete }]).action;
          if (judged.action === 'allow') expect(actual).toBe('allow');
          if (judged.action === 'deny') expect(actual).toBe('deny');
          if (judged.action === 'ask' && !judged.guarded) expect(actual).not.toBe('deny');
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('settles what every value agrees on, and asks (guarded) where values differ', () => {
    const r = new PermissionRules({ bash: { '*': 'allow', 'rm *': 'deny', 'git push*': 'deny' } });
    const judge = (shape: (string | null)[]) => r.evaluate('bash', [{ text: 's', shape }]);
    expect(judge(['rm ', null])).toMatchObject({ action: 'deny', rule: { pattern: 'rm *' } });
    expect(judge([null, ' x'])).toMatchObject({ action: 'ask', guarded: true });
    expect(judge(['git ', null])).toMatchObject({ action: 'ask', guarded: true, rule: { pattern: 'git push*' } });
    expect(judge(['ls ', null])).toEqual({ action: 'allow', rule: { key: 'bash', pattern: '*', action: 'allow' } });
    const asks = new PermissionRules({ bash: { '*': 'ask', 'git *': 'allow' } });
    expect(asks.evaluate('bash', [{ text: 'git $X', shape: ['git ', null] }]).action).toBe('allow');
    expect(asks.evaluate('bash', [{ text: '$X', shape: [null] }])).toMatchObject({ action: 'ask' });
    expect(asks.evaluate('bash', [{ text: '$X', shape: [null] }]).guarded).toBeUndefined();
  });
});

describe('the edit key', () => {
  it('applies to a tool that changes files, in the order rules are written', () => {
    const r = (config: Record<string, unknown>) => new PermissionRules(config as never);
    expect(r({ edit: 'deny' }).evaluate('write', [{ text: 'a' }], 'edit').action).toBe('deny');
    expect(r({ edit: 'deny' }).evaluate('write', [{ text: 'a' }]).action).toBe('allow');
    expect(r({ '*': 'ask', edit: 'allow' }).evaluate('write', [{ text: 'a' }], 'edit').action).toBe('allow');
    expect(r({ edit: 'deny', write: 'allow' }).evaluate('write', [{ text: 'a' }], 'edit').action).toBe('allow');
    expect(
      r({ write: 'allow', edit: { 'src/*': 'allow', '*': 'deny' } }).evaluate('write', [{ text: 'a' }], 'edit').action,
    ).toBe('deny');
  });
});
