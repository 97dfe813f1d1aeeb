import type { SettingDifference, Tokens } from '../core/index.js';
import { totalTokens } from '../core/token-total.js';
import { terminalText } from './terminal-text.js';

/** Text helpers for terminal output: tables, previews, numbers. */

/** One line, at most `max` characters (newlines shown as ⏎, other control characters escaped: see {@link terminalText}). */
export function preview(value: unknown, max = 80): string {
  const text = typeof value === 'string' ? value : value === undefined ? '' : (JSON.stringify(value) ?? String(value));
  const one = terminalText(text.replace(/\r?\n/g, '⏎ ').replace(/\s+/g, ' ').trim());
  return one.length > max ? `${one.slice(0, Math.max(0, max - 1))}…` : one;
}

/** Total tokens, or '-' when there are none recorded. */
export function fmtTokens(t: Tokens | undefined): string {
  return t ? String(totalTokens(t)) : '-';
}

/** Cost in dollars ('?' when unknown). */
export function fmtCost(c: number | null | undefined): string {
  if (c === undefined) return '-';
  if (c === null) return '?';
  return c === 0 ? '0' : c < 0.01 ? c.toFixed(5) : c.toFixed(4);
}

/** Duration in ms or s. */
export function fmtMs(ms: number | undefined): string {
  if (ms === undefined) return '-';
  return ms < 1000 ? `${Math.round(ms)}ms` : `${(ms / 1000).toFixed(1)}s`;
}

/** A left-aligned text table with a header row; cells are printed as one line each ({@link terminalText}). */
export function table(header: string[], cells: string[][]): string {
  const rows = cells.map((r) => r.map((c) => terminalText(c)));
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n') + '\n';
}

/**
 * Setting differences in a short form for a table cell: `path=new value` each (strings unquoted, `(unset)` for a
 * removed setting, a sha-256 cut to 8 characters), comma-separated.
 */
export function variantText(differences: readonly SettingDifference[]): string {
  const value = (path: string, v: unknown) => {
    if (v === undefined) return '(unset)';
    if (typeof v === 'string') return path.endsWith('sha256') ? v.slice(0, 8) : v;
    return JSON.stringify(v) ?? String(v);
  };
  return differences.map((d) => `${d.path}=${value(d.path, d.to)}`).join(', ');
}
