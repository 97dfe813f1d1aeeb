import { canonicalJson } from './canonical-json.js';

/** One setting that differs between two configs: its dotted path and its value in each (undefined: not set). */
export interface SettingDifference {
  path: string;
  from: unknown;
  to: unknown;
}

/**
 * The settings that differ between two configs, as dotted paths in key order. Plain objects are compared key by
 * key; anything else (arrays, scalars) is compared whole, by its canonical JSON. A key set to `undefined` counts
 * as not set.
 */
export function settingDifferences(from: unknown, to: unknown, prefix = ''): SettingDifference[] {
  if (isPlainObject(from) && isPlainObject(to)) {
    const keys = [...new Set([...Object.keys(from), ...Object.keys(to)])].sort();
    return keys.flatMap((k) => settingDifferences(from[k], to[k], prefix ? `${prefix}.${k}` : k));
  }
  if (from === undefined && to === undefined) return [];
  if (from !== undefined && to !== undefined && canonicalJson(from) === canonicalJson(to)) return [];
  // One side is an object and the other is not set: name each leaf, so `model.params.temperature` shows, not `model`.
  if (isPlainObject(from) && to === undefined) return settingDifferences(from, {}, prefix);
  if (isPlainObject(to) && from === undefined) return settingDifferences({}, to, prefix);
  return [{ path: prefix || '(root)', from, to }];
}

/** Every setting of a config as dotted paths (plain objects flattened, other values whole), in key order. */
export function flattenSettings(config: unknown): Array<{ path: string; value: unknown }> {
  return settingDifferences(undefined, config).map((d) => ({ path: d.path, value: d.to }));
}

/** A value as one short line: JSON, with `(unset)` for undefined. */
export function settingText(value: unknown): string {
  if (value === undefined) return '(unset)';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** `path: old -> new`, as errors and listings print a difference. */
export function formatSettingDifference(d: SettingDifference): string {
  return `${d.path}: ${settingText(d.from)} -> ${settingText(d.to)}`;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}
