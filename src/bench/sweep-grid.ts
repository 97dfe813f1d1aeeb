import { fileSafeName } from '../trace/index.js';

/** One axis of a sweep: a setting (dotted config path, or `model`) and the values it takes. */
export interface GridAxis {
  key: string;
  values: string[];
}

/** One cell of a sweep: a value for every axis, its label and the folder it runs in. */
export interface SweepCell {
  /** `key=value` per axis, in axis order. */
  settings: Array<{ key: string; value: string }>;
  /** `key=value,key=value`: how the cell is shown and how `--baseline` names it. */
  label: string;
  /** The cell's output folder name (file-safe; a hash is added when making it safe changed the label). */
  name: string;
}

/**
 * Parses `--grid key=v1,v2,...`. Values are split on commas (so a value cannot hold one), trimmed, and must be
 * distinct and non-empty; what they mean is for the config schema to decide when the cell runs.
 */
export function parseGridAxis(text: string): GridAxis {
  const eq = text.indexOf('=');
  if (eq <= 0) throw new Error(`--grid ${text}: expected key=value1,value2,..., e.g. agent.temperature=0,0.7`);
  const key = text.slice(0, eq).trim();
  if (!key || key.split('.').some((p) => !p))
    throw new Error(`--grid ${text}: "${key}" is not a dotted path of config fields`);
  const values = text
    .slice(eq + 1)
    .split(',')
    .map((v) => v.trim());
  if (values.some((v) => !v))
    throw new Error(`--grid ${text}: a value is empty (values are separated by commas and cannot contain one)`);
  const dup = values.find((v, i) => values.indexOf(v) !== i);
  if (dup !== undefined) throw new Error(`--grid ${text}: value "${dup}" is given twice`);
  return { key, values };
}

/**
 * The cells of a grid: the cross product of its axes, the first axis varying slowest (so the first cell takes the
 * first value of every axis). Throws for no axes and for an axis given twice.
 */
export function sweepCells(axes: readonly GridAxis[]): SweepCell[] {
  if (!axes.length) throw new Error('a sweep needs at least one --grid key=v1,v2,...');
  const dup = axes.find((a, i) => axes.findIndex((b) => b.key === a.key) !== i);
  if (dup) throw new Error(`--grid ${dup.key} is given twice: give all its values in one --grid`);
  let combos: Array<Array<{ key: string; value: string }>> = [[]];
  for (const axis of axes) combos = combos.flatMap((c) => axis.values.map((value) => [...c, { key: axis.key, value }]));
  return combos.map((settings) => {
    const label = settings.map((s) => `${s.key}=${s.value}`).join(',');
    return {
      settings,
      label,
      name: fileSafeName(settings.map((s) => `${s.key}-${s.value}`).join('__'), { maxLength: 100 }),
    };
  });
}

/**
 * The cell `--baseline` names: its folder name, its label, or `key=value` pairs (any order) for every axis;
 * undefined gives the first cell. Throws naming the cells when none matches.
 */
export function findBaseline(cells: readonly SweepCell[], baseline: string | undefined): SweepCell {
  if (baseline === undefined) return cells[0];
  const want = baseline
    .split(',')
    .map((s) => s.trim())
    .sort()
    .join(',');
  const found = cells.find(
    (c) =>
      c.name === baseline ||
      c.label === baseline ||
      c.settings
        .map((s) => `${s.key}=${s.value}`)
        .sort()
        .join(',') === want,
  );
  if (!found)
    throw new Error(`--baseline ${baseline}: no such cell; the cells are: ${cells.map((c) => c.label).join(' | ')}`);
  return found;
}
