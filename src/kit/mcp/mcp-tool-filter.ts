import type { McpToolFilter } from './mcp-config.js';

/**
 * Whether a server tool passes the config's filter: it matches some `include` pattern (or there is no
 * `include`) and no `exclude` pattern. Patterns are the server's tool names, where `*` matches any characters.
 */
export function toolAllowed(name: string, filter: McpToolFilter | undefined): boolean {
  if (!filter) return true;
  if (filter.include && !filter.include.some((p) => wildcardMatch(p, name))) return false;
  return !filter.exclude?.some((p) => wildcardMatch(p, name));
}

/** `*`-only wildcard match in linear time (greedy with one backtrack point, no regex). */
export function wildcardMatch(pattern: string, text: string): boolean {
  let p = 0;
  let t = 0;
  let star = -1;
  let mark = 0;
  while (t < text.length) {
    if (p < pattern.length && pattern[p] !== '*' && pattern[p] === text[t]) {
      p++;
      t++;
    } else if (p < pattern.length && pattern[p] === '*') {
      star = p++;
      mark = t;
    } else if (star >= 0) {
      p = star + 1;
      t = ++mark;
    } else return false;
  }
  while (p < pattern.length && pattern[p] === '*') p++;
  return p === pattern.length;
}
