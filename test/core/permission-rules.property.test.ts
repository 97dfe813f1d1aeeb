import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  PermissionRules,
  commandSegments,
  expandHome,
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

describe('command segments', () => {
  it('splits at ; && || | & newlines and substitutions outside quotes', () => {
    expect(commandSegments('git status && rm -rf x; ls | wc -l')).toEqual(['git status', 'rm -rf x', 'ls', 'wc -l']);
    expect(commandSegments('echo "a; b" \'c && d\'')).toEqual(['echo "a; b" \'c && d\'']);
    expect(commandSegments('echo $(rm -rf y) `id`\nwhoami')).toEqual(['echo', 'rm -rf y', 'id', 'whoami']);
    expect(commandSegments('echo a\\;b')).toEqual(['echo a\\;b']);
  });

  it('never loses a word outside the separators', () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[a-z]{1,5}$/), { minLength: 1, maxLength: 6 }),
        fc.array(fc.constantFrom(' ; ', ' && ', ' | ', '\n', ' || '), { minLength: 6, maxLength: 6 }),
        (words, seps) => {
          const line = words.map((w, i) => (i ? seps[i] : '') + w).join('');
          expect(commandSegments(line)).toEqual(words);
        },
      ),
    );
  });
});
