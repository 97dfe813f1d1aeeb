import {
  DOOM_LOOP,
  EXTERNAL_DIRECTORY,
  PermissionConfig,
  type PermissionAction,
  type PermissionRule,
} from './permission.js';
import { QitosError, markErrorClass } from './errors.js';

const KEY = /^[A-Za-z0-9_*?-]+$/;
const RANK: Record<PermissionAction, number> = { allow: 0, ask: 1, deny: 2 };

/** A wildcard pattern as a full-match regular expression: `*` any run of characters (slashes and spaces too), `?` one. */
export function wildcardRegExp(pattern: string): RegExp {
  let body = '';
  for (const ch of pattern) body += ch === '*' ? '.*' : ch === '?' ? '.' : /[\\^$.|+()[\]{}]/.test(ch) ? `\\${ch}` : ch;
  // "git *" also matches a bare "git" (as in opencode): the arguments are optional.
  if (body.endsWith(' .*')) body = `${body.slice(0, -3)}(?: .*)?`;
  return new RegExp(`^${body}$`, 's');
}

/** Whether `text` matches the wildcard `pattern` (see {@link wildcardRegExp}). */
export function matchWildcard(pattern: string, text: string): boolean {
  return wildcardRegExp(pattern).test(text);
}

/** `~`, `~/x`, `$HOME`, `$HOME/x` and `${HOME}/x` with the home folder put in; other patterns unchanged. */
export function expandHome(pattern: string, home: string): string {
  const m = /^(~|\$HOME|\$\{HOME\})(?=\/|$)/.exec(pattern);
  return m ? home.replace(/\/+$/, '') + pattern.slice(m[0].length) : pattern;
}

/** A permission config that is not valid: `path` is the key (and pattern) at fault, `reason` what is wrong there. */
export class PermissionConfigError extends QitosError {
  static {
    markErrorClass(this, 'PermissionConfigError');
  }

  constructor(
    readonly path: string[],
    readonly reason: string,
    where: string,
  ) {
    super(
      'config',
      `${[where, ...path.map((p, i) => (i === 1 ? JSON.stringify(p) : p))].filter(Boolean).join('.')}: ${reason}`,
    );
    this.name = 'PermissionConfigError';
  }
}

const ACTIONS = 'expected "allow", "ask" or "deny"';

/**
 * Validates a permission config (from YAML, JSON or code); the error names the key that is wrong, e.g.
 * `permission.bash."rm *": expected "allow", "ask" or "deny", got "never"` (a {@link PermissionConfigError}).
 */
export function parsePermissionConfig(value: unknown, where = 'permission'): PermissionConfig {
  const isAction = (v: unknown) => v === 'allow' || v === 'ask' || v === 'deny';
  if (typeof value === 'string' || value === null || typeof value !== 'object' || Array.isArray(value)) {
    if (isAction(value)) return value as PermissionConfig;
    throw new PermissionConfigError(
      [],
      `${ACTIONS} or an object of rules by tool id, got ${JSON.stringify(value)}`,
      where,
    );
  }
  for (const [key, rule] of Object.entries(value)) {
    if (!KEY.test(key))
      throw new PermissionConfigError(
        [key],
        'a key is a tool id (wildcards * and ? allowed), "external_directory" or "doom_loop"',
        where,
      );
    if (typeof rule === 'string') {
      if (!isAction(rule)) throw new PermissionConfigError([key], `${ACTIONS}, got ${JSON.stringify(rule)}`, where);
    } else if (rule && typeof rule === 'object' && !Array.isArray(rule)) {
      if (key === DOOM_LOOP) throw new PermissionConfigError([key], `${ACTIONS} (it has no patterns)`, where);
      for (const [pattern, action] of Object.entries(rule)) {
        if (!pattern) throw new PermissionConfigError([key, pattern], 'a pattern may not be empty', where);
        if (!isAction(action))
          throw new PermissionConfigError([key, pattern], `${ACTIONS}, got ${JSON.stringify(action)}`, where);
      }
    } else
      throw new PermissionConfigError([key], `${ACTIONS} or an object of patterns, got ${JSON.stringify(rule)}`, where);
  }
  // The checks above cover the schema; parsing once more keeps the schema the source of truth for the type.
  return PermissionConfig.parse(value);
}

/** A compiled rule: the flat rule and its matchers; `absolute` patterns match a path's absolute form. */
interface CompiledRule {
  rule: PermissionRule;
  key: RegExp;
  pattern: RegExp;
  absolute: boolean;
  /** The pattern as tokens (alternatives: `"git *"` is also `"git"`), for matching a subject with unknown parts. */
  tokens?: number[][];
  /** The pattern as a regular expression whose `?` and literals never match {@link HOLE}, only its `*` does. */
  holes?: RegExp | null;
}

/**
 * What the rules say about one call: the most restrictive action over its subjects, and the rule behind it.
 * `guarded`: the action is an ask that stands for a `deny` some value of a part known only at run time would get
 * (`$CMD x` under `"rm *": deny`): a person may answer it, a program that approves every ask (`--auto`) may not.
 */
export interface PermissionVerdict {
  action: PermissionAction;
  rule: PermissionRule | null;
  guarded?: boolean;
}

/**
 * A subject to match: its text, and for a path inside the workspace also its absolute form. `shape` is set when part
 * of it is known only at run time: the text as pieces, `null` where any text may stand (see {@link ShellCommand}).
 */
export interface MatchSubject {
  text: string;
  absolute?: string;
  shape?: readonly (string | null)[];
}

/**
 * Permission rules compiled for evaluation: the config flattened to rules in the order written (home folder
 * expanded), matched last-to-first. Evaluation is a few regular-expression tests per rule, well under a
 * microsecond for a typical rule set (benchmarks/perf/permissions.ts).
 */
export class PermissionRules {
  /** The flat rules, in order (what a trace records; a replay compares them). */
  readonly rules: readonly PermissionRule[];
  private readonly compiled: readonly CompiledRule[];
  private readonly byKey = new Map<string, CompiledRule[]>();

  constructor(config: PermissionConfig, options: { home?: string } = {}) {
    const flat: PermissionRule[] = [];
    if (typeof config === 'string') flat.push({ key: '*', pattern: '*', action: config });
    else {
      for (const [key, rule] of Object.entries(config)) {
        if (typeof rule === 'string') flat.push({ key, pattern: '*', action: rule });
        else
          for (const [pattern, action] of Object.entries(rule))
            flat.push({ key, pattern: options.home ? expandHome(pattern, options.home) : pattern, action });
      }
    }
    this.rules = flat;
    this.compiled = flat.map((rule) => ({
      rule,
      key: wildcardRegExp(rule.key),
      pattern: wildcardRegExp(rule.pattern),
      absolute: rule.pattern.startsWith('/'),
    }));
  }

  /** True when some rule names this key (so a missing `external_directory` or `doom_loop` keeps today's behaviour). */
  mentions(key: string): boolean {
    return this.forKey(key).length > 0;
  }

  /** True when some rule of this key says `ask` or `deny` (else every call of it is allowed, whatever its input). */
  restricts(key: string, also?: string): boolean {
    return this.forKey(key, also).some((r) => r.rule.action !== 'allow');
  }

  /**
   * The verdict for a call of `key` about `subjects`: for each subject the last matching rule's action (allow
   * when none matches), and over all subjects the most restrictive (deny, then ask, then allow). A subject with a
   * `shape` is judged by every rule some value of its unknown parts could meet: one action if they all agree, else
   * an ask (guarded when one of them is a deny). `also`: a second key whose rules apply too, in the order written
   * (`edit` for every tool that changes files).
   */
  evaluate(key: string, subjects: readonly MatchSubject[], also?: string): PermissionVerdict {
    const rules = this.forKey(key, also);
    let best: PermissionVerdict = { action: 'allow', rule: null };
    for (const s of subjects.length ? subjects : [{ text: '' }]) {
      const v = s.shape?.includes(null) ? this.possible(rules, s.shape) : this.last(rules, s);
      if (
        RANK[v.action] > RANK[best.action] ||
        (v.action === best.action && ((best.rule === null && v.rule !== null) || (v.guarded && !best.guarded)))
      )
        best = v;
    }
    return best;
  }

  /** The last rule that matches a subject known in full. */
  private last(rules: readonly CompiledRule[], s: MatchSubject): PermissionVerdict {
    for (let i = rules.length - 1; i >= 0; i--) {
      const r = rules[i];
      if (r.pattern.test(r.absolute && s.absolute !== undefined ? s.absolute : s.text))
        return { action: r.rule.action, rule: r.rule };
    }
    return { action: 'allow', rule: null };
  }

  /**
   * The actions a subject with unknown parts could get. Rules are read last to first; each one some value could
   * meet is possible; once a rule matches every value, the rules before it can no longer decide.
   */
  private possible(rules: readonly CompiledRule[], shape: readonly (string | null)[]): PermissionVerdict {
    const tokens = shapeTokens(shape);
    const marked = shape.map((p) => (p === null ? HOLE : p)).join('');
    const found: PermissionVerdict[] = [];
    let covered = false;
    for (let i = rules.length - 1; i >= 0 && !covered; i--) {
      const r = rules[i];
      r.tokens ??= patternTokens(r.rule.pattern);
      if (!r.tokens.some((t) => tokensMeet(tokens, t))) continue;
      found.push({ action: r.rule.action, rule: r.rule });
      if (r.holes === undefined) r.holes = holeRegExp(r.rule.pattern);
      covered = r.holes !== null && r.holes.test(marked);
    }
    if (!covered) found.push({ action: 'allow', rule: null });
    let most = found[0];
    for (const v of found) if (RANK[v.action] > RANK[most.action]) most = v;
    if (found.every((v) => v.action === most.action)) return most;
    return most.action === 'deny' ? { ...most, action: 'ask', guarded: true } : most;
  }

  private forKey(key: string, also?: string): CompiledRule[] {
    const id = also === undefined ? key : `${key}\n${also}`;
    let rules = this.byKey.get(id);
    if (!rules) {
      // `*` and other wildcards stand for tools: the two special keys apply only where they are written out.
      const special = key === EXTERNAL_DIRECTORY || key === DOOM_LOOP;
      rules = this.compiled.filter((r) =>
        special ? r.rule.key === key : r.key.test(key) || (also !== undefined && r.key.test(also)),
      );
      // Bounded by the tool ids a run can name (a registry's), so the cache stays small.
      if (this.byKey.size < 1024) this.byKey.set(id, rules);
    }
    return rules;
  }
}

/** Where a subject's unknown part stands in {@link holeRegExp} tests: a noncharacter no command holds by chance. */
const HOLE = '\uFFFF';
const STAR = -1;
const ONE = -2;
/** Past this many states a shape and a pattern are taken to meet (the careful answer) rather than checked. */
const MAX_MEET_STATES = 4_000_000;

function shapeTokens(shape: readonly (string | null)[]): number[] {
  const out: number[] = [];
  for (const p of shape) {
    if (p === null) {
      if (out[out.length - 1] !== STAR) out.push(STAR);
    } else for (const ch of p) out.push(ch.codePointAt(0)!);
  }
  return out;
}

function patternTokens(pattern: string): number[][] {
  const t = [...pattern].map((ch) => (ch === '*' ? STAR : ch === '?' ? ONE : ch.codePointAt(0)!));
  // "git *" also matches a bare "git", as in wildcardRegExp.
  return pattern.endsWith(' *') ? [t, t.slice(0, -2)] : [t];
}

/** Whether some text matches both token lists (`*` any run, `?` one character): a search of the product states. */
export function tokensMeet(a: readonly number[], b: readonly number[]): boolean {
  const n = a.length;
  const m = b.length;
  if ((n + 1) * (m + 1) > MAX_MEET_STATES) return true;
  const seen = new Uint8Array((n + 1) * (m + 1));
  const todo: number[] = [0, 0];
  const push = (i: number, j: number) => {
    if (!seen[i * (m + 1) + j]) todo.push(i, j);
  };
  while (todo.length) {
    const j = todo.pop()!;
    const i = todo.pop()!;
    const k = i * (m + 1) + j;
    if (seen[k]) continue;
    seen[k] = 1;
    if (i === n && j === m) return true;
    const x = i < n ? a[i] : undefined;
    const y = j < m ? b[j] : undefined;
    if (x === STAR) {
      push(i + 1, j);
      if (y !== undefined) push(i, j + 1);
    }
    if (y === STAR) {
      push(i, j + 1);
      if (x !== undefined) push(i + 1, j);
    }
    if (x !== undefined && y !== undefined && x !== STAR && y !== STAR && (x === ONE || y === ONE || x === y))
      push(i + 1, j + 1);
  }
  return false;
}

/**
 * The pattern as a full-match expression in which only `*` can stand for a {@link HOLE}: when it matches a shape's
 * text with each unknown part written as one HOLE, it matches every value of the shape (each HOLE sits inside a
 * `*`, which takes any text in its place). Null for a pattern that holds the HOLE character itself.
 */
function holeRegExp(pattern: string): RegExp | null {
  if (pattern.includes(HOLE)) return null;
  let body = '';
  for (const ch of pattern)
    body += ch === '*' ? '.*' : ch === '?' ? `[^${HOLE}]` : /[\\^$.|+()[\]{}]/.test(ch) ? `\\${ch}` : ch;
  if (body.endsWith(' .*')) body = `${body.slice(0, -3)}(?: .*)?`;
  return new RegExp(`^${body}$`, 'su');
}
