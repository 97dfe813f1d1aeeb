import { EnvError } from '../core/index.js';

/**
 * A compiled glob pattern over `/`-separated relative paths.
 * Syntax: `*` (any characters but `/`), `?` (one character but `/`), `**` as a whole segment (any number of
 * segments), `[abc]` / `[!abc]` classes, `{a,b}` alternatives, `\` escapes the next character.
 * Like common shells and ripgrep, wildcards do not match a leading `.` of a name: `**\/*.ts` skips `.git/`;
 * name the dot explicitly (`.github/**`) to include such entries.
 */
export interface GlobMatcher {
  readonly pattern: string;
  /** True when the relative path matches. */
  test(path: string): boolean;
  /** Leading literal segments shared by every alternative (where a walk may start), `''` when none. */
  readonly base: string;
  /** Deepest segment count a match can have below `base`, or Infinity when a `**` is present. */
  readonly maxDepth: number;
  /** Some alternative names a dot entry explicitly, so a walk must look into dot folders. */
  readonly dotted: boolean;
  /** Literal segment names the pattern mentions (a walk skips ignored folders unless named here). */
  readonly literals: ReadonlySet<string>;
}

const MAX_ALTERNATIVES = 256;
const MAX_PATTERN = 4096;

/** Compiles a glob; throws EnvError naming the problem for patterns that are absolute or climb with `..`. */
export function compileGlob(pattern: string): GlobMatcher {
  if (typeof pattern !== 'string' || pattern.length === 0)
    throw new EnvError('glob pattern must be a non-empty string');
  if (pattern.length > MAX_PATTERN)
    throw new EnvError(`glob pattern is ${pattern.length} characters long; the limit is ${MAX_PATTERN}`);
  if (pattern.includes('\0')) throw new EnvError('glob pattern contains a NUL byte');
  if (pattern.startsWith('/'))
    throw new EnvError(`glob pattern "${pattern}" is absolute; give a pattern relative to the search folder`);
  const alternatives = expandBraces(pattern);
  const segmentLists = alternatives.map((alt) => alt.split('/').filter((s) => s !== ''));
  for (const segs of segmentLists) {
    if (segs.includes('..'))
      throw new EnvError(`glob pattern "${pattern}" contains "..": patterns cannot leave the search folder`);
  }
  const regexes = segmentLists.map((segs) => new RegExp(`^${segmentsToRegex(segs.filter((s) => s !== '.'))}$`));
  const literalPrefixes = segmentLists.map((segs) => {
    const out: string[] = [];
    for (const s of segs.slice(0, -1)) {
      if (hasMagic(s) || s === '.') break;
      out.push(unescape(s));
    }
    return out;
  });
  const base = commonPrefix(literalPrefixes).join('/');
  const baseDepth = base ? base.split('/').length : 0;
  const maxDepth = Math.max(
    ...segmentLists.map((segs) => (segs.includes('**') ? Infinity : segs.filter((s) => s !== '.').length - baseDepth)),
  );
  const dotted = segmentLists.some((segs) => segs.some((s) => s.startsWith('.') && s !== '.' && s !== '..'));
  const literals = new Set<string>();
  for (const segs of segmentLists) for (const s of segs) if (!hasMagic(s)) literals.add(unescape(s));
  return { pattern, test: (p) => regexes.some((r) => r.test(p)), base, maxDepth, dotted, literals };
}

function hasMagic(segment: string): boolean {
  return /(^|[^\\])[*?[]/.test(segment);
}

function unescape(segment: string): string {
  return segment.replace(/\\(.)/g, '$1');
}

function commonPrefix(lists: string[][]): string[] {
  if (lists.length === 0) return [];
  const out: string[] = [];
  for (let i = 0; ; i++) {
    const s = lists[0][i];
    if (s === undefined || !lists.every((l) => l[i] === s)) return out;
    out.push(s);
  }
}

/** `{a,b}c` -> [`ac`, `bc`], nested and repeated; a `{` without a matching `}` or comma is literal. */
function expandBraces(pattern: string): string[] {
  const open = findBrace(pattern);
  if (!open) return [pattern];
  const { start, end, options } = open;
  const out: string[] = [];
  for (const opt of options) {
    for (const rest of expandBraces(pattern.slice(0, start) + opt + pattern.slice(end + 1))) {
      out.push(rest);
      if (out.length > MAX_ALTERNATIVES)
        throw new EnvError(`glob pattern "${pattern}" expands to more than ${MAX_ALTERNATIVES} alternatives`);
    }
  }
  return out;
}

function findBrace(p: string): { start: number; end: number; options: string[] } | undefined {
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '\\') {
      i++;
      continue;
    }
    if (p[i] !== '{') continue;
    let depth = 0;
    const commas: number[] = [];
    for (let j = i; j < p.length; j++) {
      const c = p[j];
      if (c === '\\') {
        j++;
        continue;
      }
      if (c === '{') depth++;
      else if (c === '}') {
        depth--;
        if (depth === 0) {
          if (commas.length === 0) break; // `{abc}` is literal
          const bounds = [i, ...commas, j];
          const options = bounds.slice(0, -1).map((b, k) => p.slice(b + 1, bounds[k + 1]));
          return { start: i, end: j, options };
        }
      } else if (c === ',' && depth === 1) commas.push(j);
    }
  }
  return undefined;
}

const NO_DOT = '(?!\\.)';

function segmentsToRegex(segs: string[]): string {
  let out = '';
  let afterGlobstar = false;
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i];
    const last = i === segs.length - 1;
    const sep = i > 0 && !afterGlobstar ? '/' : '';
    if (seg === '**') {
      if (last) out += i > 0 && !afterGlobstar ? `(?:/${NO_DOT}[^/]+)*` : `(?:${NO_DOT}[^/]+(?:/${NO_DOT}[^/]+)*)?`;
      else out += `${sep}(?:${NO_DOT}[^/]+/)*`;
      afterGlobstar = !last;
      continue;
    }
    out += sep + segmentToRegex(seg);
    afterGlobstar = false;
  }
  return out;
}

function segmentToRegex(seg: string): string {
  let out = /^[*?[]/.test(seg) ? NO_DOT : '';
  for (let i = 0; i < seg.length; i++) {
    const c = seg[i];
    if (c === '\\' && i + 1 < seg.length) {
      out += escapeRegex(seg[++i]);
    } else if (c === '*') {
      while (seg[i + 1] === '*') i++;
      out += '[^/]*';
    } else if (c === '?') {
      out += '[^/]';
    } else if (c === '[') {
      const close = seg.indexOf(']', i + 2);
      if (close === -1) {
        out += '\\[';
        continue;
      }
      let body = seg.slice(i + 1, close);
      const negated = body.startsWith('!') || body.startsWith('^');
      if (negated) body = body.slice(1);
      const cls = body.replace(/[\\\]^]/g, (m) => `\\${m}`);
      out += negated ? `[^/${cls}]` : `[${cls}]`;
      i = close;
    } else {
      out += escapeRegex(c);
    }
  }
  return out;
}

function escapeRegex(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
