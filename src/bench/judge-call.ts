import type { Model, Usage } from '../core/index.js';
import { addCost, addTokens, emptyTokens, responseText } from '../core/index.js';
import { extractJson } from './scorers/json-field.js';

/** One reply of a judge model: its JSON object (undefined when there was none), the raw text, and what it cost. */
export interface JudgeReply {
  json: Record<string, unknown> | undefined;
  text: string;
  usage: Usage;
}

/** Sends one prompt to a judge model as a single user message (temperature 0 unless given) and reads its JSON reply. */
export async function askJudge(
  model: Model,
  prompt: string,
  options: { signal?: AbortSignal; temperature?: number } = {},
): Promise<JudgeReply> {
  const response = await model.generate(
    { messages: [{ role: 'user', content: [{ type: 'text', text: prompt }] }], temperature: options.temperature ?? 0 },
    { signal: options.signal },
  );
  const text = responseText(response);
  const json = extractJson(text);
  return {
    json:
      json !== null && typeof json === 'object' && !Array.isArray(json) ? (json as Record<string, unknown>) : undefined,
    text,
    usage: { tokens: response.usage, cost: response.cost, modelCalls: 1 },
  };
}

/** No model calls yet. */
export function emptyUsage(): Usage {
  return { tokens: emptyTokens(), cost: 0, modelCalls: 0 };
}

/** The sum of two usages (an unknown cost makes the sum's cost unknown). */
export function addUsage(a: Usage, b: Usage): Usage {
  return {
    tokens: addTokens(a.tokens, b.tokens),
    cost: addCost(a.cost, b.cost),
    modelCalls: a.modelCalls + b.modelCalls,
  };
}

/** A rubric as prompt text: a list becomes bullet lines; empty when there is none. */
export function rubricText(rubric: string | readonly string[] | undefined, heading: string): string {
  if (rubric === undefined || rubric.length === 0) return '';
  const body = typeof rubric === 'string' ? rubric.trim() : rubric.map((r) => `- ${r}`).join('\n');
  return `\n${heading}\n${body}\n`;
}
