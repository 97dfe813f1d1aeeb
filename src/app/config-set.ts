import { z } from 'zod';
import { AppError } from './app-error.js';

/** One `--set key=value`: the dotted key, split, and the parsed value. */
export interface Setting {
  /** The key as given, e.g. `engine.maxSteps`. */
  key: string;
  path: string[];
  value: unknown;
  /** The `key=value` text as given (for error messages). */
  text: string;
}

/** Path segments that would reach an object's prototype instead of a field. */
const FORBIDDEN = new Set(['__proto__', 'prototype', 'constructor']);

/**
 * Parses `key=value`. The key is a dotted path (`agent.temperature`); the value is a JSON scalar when it reads as
 * one (`0.7`, `true`, `null`), a JSON array or object when it starts with `[` or `{`, else the text itself. The
 * config schema decides later whether the value fits its field.
 */
export function parseSetting(text: string): Setting {
  const eq = text.indexOf('=');
  if (eq <= 0) throw new AppError(`--set ${text}: expected key=value, e.g. engine.maxSteps=10`);
  const key = text.slice(0, eq).trim();
  const path = key.split('.');
  const bad = path.find((p) => p === '' || FORBIDDEN.has(p));
  if (bad !== undefined)
    throw new AppError(
      `--set ${text}: "${key}" is not a dotted path of config fields${bad ? ` ("${bad}" cannot be a field)` : ''}`,
    );
  return { key, path, value: parseSettingValue(text.slice(eq + 1)), text };
}

/** A `--set` or `--grid` value: JSON scalars (numbers, booleans, null), JSON arrays/objects, else the text as a string. */
export function parseSettingValue(raw: string): unknown {
  const t = raw.trim();
  if (t === 'true') return true;
  if (t === 'false') return false;
  if (t === 'null') return null;
  if (t !== '' && /^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) return Number(t);
  if (/^[[{"]/.test(t)) {
    try {
      return JSON.parse(t);
    } catch {
      return raw;
    }
  }
  return raw;
}

/** The value at a dotted path (undefined when a segment is missing or not an object). */
export function getPath(obj: unknown, path: readonly string[]): unknown {
  let cur = obj;
  for (const p of path) {
    if (!isPlain(cur) || !Object.hasOwn(cur, p)) return undefined;
    cur = cur[p];
  }
  return cur;
}

/**
 * A copy of `obj` with `value` at the dotted `path`; everything else is shared, unchanged. Missing objects on the
 * way are created, and a non-object on the way (e.g. `doomLoop: true`) is replaced by an object.
 */
export function setPath(
  obj: Record<string, unknown>,
  path: readonly string[],
  value: unknown,
): Record<string, unknown> {
  if (path.length === 0) throw new Error('setPath: empty path');
  const [head, ...rest] = path;
  const prev = Object.hasOwn(obj, head) ? obj[head] : undefined;
  const next = rest.length ? setPath(isPlain(prev) ? prev : {}, rest, value) : value;
  const out: Record<string, unknown> = { ...obj };
  // defineProperty, not assignment: a key such as "__proto__" stays data (parseSetting refuses it anyway).
  Object.defineProperty(out, head, { value: next, enumerable: true, writable: true, configurable: true });
  return out;
}

/**
 * The field names a zod object schema accepts at a dotted path (through optionals and unions), or undefined when
 * the path does not lead to an object schema. Used to say what was expected for an unknown `--set` key.
 */
export function schemaKeysAt(schema: z.ZodType, path: readonly string[]): string[] | undefined {
  const objects = objectsOf(schema);
  if (path.length === 0) return objects.length ? [...new Set(objects.flatMap((o) => Object.keys(o.shape)))] : undefined;
  const [head, ...rest] = path;
  for (const o of objects) {
    const field = (o.shape as Record<string, z.ZodType>)[head];
    if (field) return schemaKeysAt(field, rest);
  }
  return undefined;
}

function objectsOf(schema: z.ZodType): Array<z.ZodObject> {
  if (schema instanceof z.ZodObject) return [schema];
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable || schema instanceof z.ZodDefault)
    return objectsOf(schema.unwrap() as z.ZodType);
  if (schema instanceof z.ZodUnion) return (schema.options as z.ZodType[]).flatMap(objectsOf);
  return [];
}

function isPlain(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}
