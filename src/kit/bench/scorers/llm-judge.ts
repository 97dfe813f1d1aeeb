import type { Model } from '../../../core/index.js';
import { responseText } from '../../../core/index.js';
import type { Scorer } from '../scorer.js';
import { show } from '../scorer.js';
import { extractJson } from './json-field.js';

/**
 * The judge's default prompt. `{{question}}`, `{{expected}}` and `{{answer}}` are replaced; the judge must reply
 * with one JSON object `{"score": <0..1>, "explanation": "..."}`. Documented in docs/bench.md.
 */
export const DEFAULT_JUDGE_PROMPT = `You are grading an AI agent's answer to a task against a reference answer.

Task:
{{question}}

Reference answer:
{{expected}}

Agent's answer:
{{answer}}

Judge only whether the agent's answer is correct and complete with respect to the reference answer. Ignore style,
length and formatting; different wording or units that mean the same thing are correct. An answer that hedges
between several options, or adds claims that contradict the reference, is not correct.

Reply with exactly one JSON object and nothing else:
{"score": <a number from 0 to 1, 1 = fully correct>, "explanation": "<one or two sentences>"}`;

/** Options of the LLM judge. */
export interface LlmJudgeOptions {
  /** Prompt template (see DEFAULT_JUDGE_PROMPT for the placeholders). */
  prompt?: string;
  /** Score at or above which the answer passes (default 0.5). */
  threshold?: number;
  /** Sampling temperature of the judge (default 0, for repeatable grades). */
  temperature?: number;
}

/**
 * Grades answers with a model (any configured `Model`). A judge reply that is not the JSON asked for throws, so
 * the task is recorded as a scoring error rather than a silent fail.
 */
export function llmJudge(model: Model, options: LlmJudgeOptions = {}): Scorer {
  const template = options.prompt ?? DEFAULT_JUDGE_PROMPT;
  const threshold = options.threshold ?? 0.5;
  return {
    name: `llm_judge(${model.id})`,
    async score({ task, answer, expected, signal }) {
      if (answer === null) return { score: 0, pass: false, explanation: 'no answer' };
      const fill: Record<string, string> = {
        question: task.objective,
        expected: expected === undefined ? '(none given)' : typeof expected === 'string' ? expected : JSON.stringify(expected),
        answer,
      };
      const prompt = template.replace(/\{\{(question|expected|answer)\}\}/g, (_, k: string) => fill[k]);
      const response = await model.generate(
        { messages: [{ role: 'user', content: [{ type: 'text', text: prompt }] }], temperature: options.temperature ?? 0 },
        { signal },
      );
      const text = responseText(response);
      const verdict = extractJson(text) as { score?: unknown; explanation?: unknown } | undefined;
      const score = typeof verdict?.score === 'number' ? verdict.score : typeof verdict?.score === 'string' ? Number(verdict.score) : Number.NaN;
      if (!Number.isFinite(score) || score < 0 || score > 1) throw new Error(`judge ${model.id} did not reply with {"score": 0..1, ...}: ${show(text, 200)}`);
      const why = typeof verdict?.explanation === 'string' ? verdict.explanation : '';
      return { score, pass: score >= threshold, explanation: `judge: ${score}${why ? ` (${why})` : ''}` };
    },
  };
}
