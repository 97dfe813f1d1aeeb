import type { Decision } from './decision.js';
import type { ModelResponse, ResponsePart, ToolSpec } from './model.js';
import type { ModelMessage, ModelToolResultPart } from './model-message.js';
import type { ParseError } from './errors.js';

/** What a parser knows when it parses. */
export interface ParseContext {
  /** Names of the tools the agent offers (a parser may reject unknown tools). */
  tools: readonly string[];
  /** The tools' specs (JSON Schemas), for parsers that type text arguments by schema (XML). */
  specs?: readonly ToolSpec[];
}

/** Turns a model reply into a Decision, or a ParseError whose message tells the model how to fix its output. */
export interface Parser {
  readonly name: string;
  /** True when the parser reads native tool calls: the engine then sends tool schemas to the model. */
  readonly native?: boolean;
  parse(response: Pick<ModelResponse, 'parts'>, ctx: ParseContext): Decision | ParseError;
  /** Renders a decision in this parser's format (for round-trip tests, few-shot prompts and scripted models). */
  format(decision: Decision): ResponsePart[];
  /** Format instructions for the system prompt. */
  instructions(tools: readonly ToolSpec[]): string;
  /**
   * How the results of the calls this parser read from a reply's text go back to the model, in the parser's
   * own words (ReAct: `Observation from add: 5`). Native calls need none: their results go back as `tool`
   * messages. Without it, `toModelMessages`'s plain default applies.
   */
  formatResults?(results: readonly ModelToolResultPart[]): ModelMessage[];
}

/** The text of a reply (all text parts joined). */
export function responseText(response: Pick<ModelResponse, 'parts'>): string {
  let out = '';
  for (const p of response.parts) if (p.type === 'text') out += p.text;
  return out;
}
