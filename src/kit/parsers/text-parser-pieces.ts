import type { ModelToolResultPart, ResultFormatter, ToolSpec } from '../../core/index.js';
import { ParseError, resultsMessage } from '../../core/index.js';

/**
 * The pieces the text parsers (ReAct, JSON, XML) share: how tool results go back to the model, how tools are
 * listed in the instructions, how a format hint is laid out and how a rejection carries it.
 */

/** Results of calls read from text go back as `Observation from <tool>: <output>` paragraphs in one user message. */
export const observationResults: ResultFormatter = (results: readonly ModelToolResultPart[]) => [
  resultsMessage(results, (r) => `Observation${r.isError ? ' (error)' : ''} from ${r.name}: ${r.output}`),
];

/** The tool list of a parser's instructions: `- name: description` and the JSON Schema of its arguments. */
export function toolList(tools: readonly ToolSpec[], schemaLabel: string): string {
  return (
    tools.map((t) => `- ${t.name}: ${t.description}\n  ${schemaLabel}: ${JSON.stringify(t.inputSchema)}`).join('\n') ||
    '(none)'
  );
}

/** A format hint: how to act (`several` when more than one action is allowed), then how to answer. */
export function formatHint(parts: { intro: string; act: string; several?: string; final: string }): string {
  return `${parts.intro}\n${parts.act}\n${parts.several ? `(${parts.several})\n` : ''}or, when you have the answer:\n${parts.final}`;
}

/** A ParseError whose message ends with the parser's format hint (joined by `sep`), so the model sees how to fix its reply. */
export function hintedError(hint: string, sep = '\n'): (message: string, raw: string) => ParseError {
  return (message, raw) => new ParseError(`${message}${sep}${hint}`, raw);
}

/** A plain object (not null, not an array). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
