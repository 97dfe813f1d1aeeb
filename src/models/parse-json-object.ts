import { nestsDeeperThan } from '../core/index.js';

/**
 * The JSON object `text` holds, or undefined when it holds anything else: malformed or empty text, an array,
 * a scalar, null, or an object nested deeper than MAX_JSON_DEPTH. Tool-call arguments must be an object; what is
 * not one is left for the parser to report.
 */
export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined; // malformed: the parser turns a tool call without args into a ParseError the model sees
  }
  return v && typeof v === 'object' && !Array.isArray(v) && !nestsDeeperThan(v)
    ? (v as Record<string, unknown>)
    : undefined;
}
