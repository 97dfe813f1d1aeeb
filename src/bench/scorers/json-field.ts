import type { Scorer } from '../scorer.js';
import { show, verdict } from '../scorer.js';
import { jsonDifference } from './json-compare.js';

/** Reads `a.b[0].c` (or `a.b.0.c`) from a value; undefined when the path does not exist. */
export function getPath(value: unknown, path: string): unknown {
  const keys = path
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .filter(Boolean);
  let cur = value;
  for (const k of keys) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[k];
  }
  return cur;
}

/** The first JSON object or array in a text (a whole-text parse first, then inside a code fence, then by braces). */
export function extractJson(text: string): unknown {
  const attempts = [text.trim()];
  const fence = /```(?:json)?\s*([\s\S]*?)```/i.exec(text);
  if (fence) attempts.push(fence[1].trim());
  const start = text.search(/[[{]/);
  if (start >= 0) {
    const close = text[start] === '{' ? '}' : ']';
    attempts.push(text.slice(start, text.lastIndexOf(close) + 1));
  }
  for (const a of attempts) {
    try {
      return JSON.parse(a);
    } catch {
      // Not this candidate; the next one may parse. Failure of all is reported by the caller.
    }
  }
  return undefined;
}

/**
 * Parses the answer as JSON and compares the field at `path` with the expected value: `expectedPath` in the
 * task's `expected` when given, else the same `path` when `expected` is an object, else `expected` itself.
 * Values are compared as JSON (see {@link jsonDifference}); numbers within `tolerance` (default 0) count as equal.
 */
export function jsonField(options: { path: string; expectedPath?: string; tolerance?: number }): Scorer {
  if (!options?.path) throw new Error('jsonField needs a "path" (e.g. "result.total")');
  const tol = options.tolerance ?? 0;
  return {
    name: 'json_field',
    score({ answer, expected }) {
      if (answer === null) return verdict(false, 'no answer');
      const parsed = extractJson(answer);
      if (parsed === undefined) return verdict(false, `answer is not JSON: ${show(answer)}`);
      const got = getPath(parsed, options.path);
      if (got === undefined) return verdict(false, `answer has no field ${options.path}`);
      const want =
        options.expectedPath !== undefined
          ? getPath(expected, options.expectedPath)
          : expected !== null && typeof expected === 'object' && !Array.isArray(expected)
            ? getPath(expected, options.path)
            : expected;
      if (want === undefined)
        throw new Error(`json_field: the task's expected value has no field ${options.expectedPath ?? options.path}`);
      const d = jsonDifference(got, want, { tolerance: tol }, options.path);
      return d ? verdict(false, `${d.path} ${d.why}`) : verdict(true, `${options.path} = ${show(got)}`);
    },
  };
}
