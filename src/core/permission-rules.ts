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
}

/** What the rules say about one call: the most restrictive action over its subjects, and the rule behind it. */
export interface PermissionVerdict {
  action: PermissionAction;
  rule: PermissionRule | null;
}

/** A subject to match: its text, and for a path inside the workspace also its absolute form. */
export interface MatchSubject {
  text: string;
  absolute?: string;
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

  /**
   * The verdict for a call of `key` about `subjects`: for each subject the last matching rule's action (allow
   * when none matches), and over all subjects the most restrictive (deny, then ask, then allow).
   */
  evaluate(key: string, subjects: readonly MatchSubject[]): PermissionVerdict {
    const rules = this.forKey(key);
    let best: PermissionVerdict = { action: 'allow', rule: null };
    for (const s of subjects.length ? subjects : [{ text: '' }]) {
      let hit: CompiledRule | undefined;
      for (let i = rules.length - 1; i >= 0; i--) {
        const r = rules[i];
        if (r.pattern.test(r.absolute && s.absolute !== undefined ? s.absolute : s.text)) {
          hit = r;
          break;
        }
      }
      if (hit && (RANK[hit.rule.action] > RANK[best.action] || (best.rule === null && hit.rule.action === best.action)))
        best = { action: hit.rule.action, rule: hit.rule };
    }
    return best;
  }

  private forKey(key: string): CompiledRule[] {
    let rules = this.byKey.get(key);
    if (!rules) {
      // `*` and other wildcards stand for tools: the two special keys apply only where they are written out.
      const special = key === EXTERNAL_DIRECTORY || key === DOOM_LOOP;
      rules = this.compiled.filter((r) => (special ? r.rule.key === key : r.key.test(key)));
      // Bounded by the tool ids a run can name (a registry's), so the cache stays small.
      if (this.byKey.size < 1024) this.byKey.set(key, rules);
    }
    return rules;
  }
}

/** The segments of a shell command line, split at `;`, `&`, `|`, newlines and `(`/`)`/`` ` `` outside quotes, each trimmed. */
export function commandSegments(command: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < command.length; i++) {
    const ch = command[i];
    if (quote) {
      if (ch === '\\' && quote === '"' && i + 1 < command.length) {
        cur += ch + command[++i];
        continue;
      }
      if (ch === quote) quote = null;
      cur += ch;
      continue;
    }
    if (ch === '\\' && i + 1 < command.length) {
      cur += ch + command[++i];
      continue;
    }
    if (ch === '"' || ch === "'") {
      quote = ch;
      cur += ch;
      continue;
    }
    if (
      ch === ';' ||
      ch === '&' ||
      ch === '|' ||
      ch === '\n' ||
      ch === '(' ||
      ch === ')' ||
      ch === '`' ||
      (ch === '$' && command[i + 1] === '(')
    ) {
      if (cur.trim()) out.push(cur.trim());
      cur = '';
      continue;
    }
    cur += ch;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}
