import { readFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import { isMap, type Document, type LineCounter } from 'yaml';
import { YamlError, parseYaml, type ParsedYaml } from '../kit/yaml/index.js';
import type { z } from 'zod';
import { formatZodIssue } from '../core/index.js';
import { AppError } from './app-error.js';
import { QitosConfig } from './config-schema.js';

/**
 * Reads and validates a `--config` YAML file. Errors are one line naming the file, the line and the field,
 * e.g. `qitos.yaml:4: engine.maxSteps: expected number, received string`.
 */
export async function loadConfigFile(path: string, cwd: string): Promise<QitosConfig> {
  const abs = resolve(cwd, path);
  const text = await readFile(abs, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new AppError(
      err.code === 'ENOENT' ? `config file not found: ${path}` : `cannot read config file ${path}: ${err.message}`,
    );
  });
  return parseConfig(text, relative(cwd, abs) || path);
}

/** Parses and validates config text; `name` is used in error messages. */
export function parseConfig(text: string, name: string): QitosConfig {
  let yaml: ParsedYaml;
  try {
    yaml = parseYaml(text);
  } catch (err) {
    if (!YamlError.isInstance(err)) throw err;
    throw new AppError(`${name}:${err.line}: ${err.message}`);
  }
  const { doc, lines } = yaml;
  const raw = yaml.value ?? {};
  const parsed = QitosConfig.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new AppError(`${name}:${lineOf(doc, lines, issue)}: ${formatZodIssue(issue, '(top level)')}`);
}

/** The line of the closest node the document has for the field an issue is about. */
function lineOf(doc: Document, lines: LineCounter, issue: z.core.$ZodIssue): number {
  const path = issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p));
  const unknownKey = issue.code === 'unrecognized_keys' ? issue.keys[0] : undefined;
  if (unknownKey !== undefined) {
    const parent = path.length ? doc.getIn(path, true) : doc.contents;
    if (isMap(parent)) {
      const pair = parent.items.find((p) => (p.key as { value?: unknown } | null)?.value === unknownKey);
      const range = (pair?.key as { range?: [number, number, number] } | null)?.range;
      if (range) return lines.linePos(range[0]).line;
    }
  }
  // The node itself, or the closest ancestor the document has (a missing field points at its parent).
  for (let n = path.length; n >= 0; n--) {
    const node = (n === 0 ? doc.contents : doc.getIn(path.slice(0, n), true)) as
      { range?: [number, number, number] } | null | undefined;
    if (node?.range) return lines.linePos(node.range[0]).line;
  }
  return 1;
}

/**
 * Deep-merges configs: plain objects merge key by key, anything else (arrays, scalars) in `over` replaces
 * `base`. `undefined` values in `over` are ignored, so unset flags do not erase the file's values.
 */
export function mergeConfig<T extends Record<string, unknown>>(base: T, over: Record<string, unknown>): T {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    if (v === undefined) continue;
    const prev = Object.hasOwn(out, k) ? out[k] : undefined;
    // defineProperty, not assignment: a "__proto__" key from a file must stay data, never a prototype.
    Object.defineProperty(out, k, {
      value: isPlain(prev) && isPlain(v) ? mergeConfig(prev, v) : v,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out as T;
}

function isPlain(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}
