/**
 * The JSON object `text` holds, or undefined when it holds anything else: malformed or empty text, an array,
 * a scalar, null. Tool-call arguments must be an object; what is not one is left for the parser to report.
 */
export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined; // malformed: the parser turns a tool call without args into a ParseError the model sees
  }
}
