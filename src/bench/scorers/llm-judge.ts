import type { Model } from '../../core/index.js';
import { askJudge, rubricText } from '../judge-call.js';
import type { Scorer } from '../scorer.js';
import { show } from '../scorer.js';

/**
 * The judge's default prompt. `{{question}}`, `{{expected}}`, `{{answer}}` and `{{rubric}}` (empty without a rubric)
 * are replaced; the judge must reply with one JSON object `{"score": <0..1>, "explanation": "..."}`. Documented in
 * docs/bench.md.
 */
export const DEFAULT_JUDGE_PROMPT = `You are grading an AI agent's answer to a task against a reference answer.

Task:
{{question}}

Reference answer:
{{expected}}

Agent's answer:
{{answer}}
{{rubric}}
Judge only whether the agent's answer is correct and complete with respect to the reference answer. Ignore style,
length and formatting; different wording or units that mean the same thing are correct. An answer that hedges
between several options, or adds claims that contradict the reference, is not correct.

Reply with exactly one JSON object and nothing else:
{"score": <a number from 0 to 1, 1 = fully correct>, "explanation": "<one or two sentences>"}`;

/** Options of the LLM judge. */
export interface LlmJudgeOptions {
  /** Prompt template (see DEFAULT_JUDGE_PROMPT for the placeholders). */
  prompt?: string;
  /** What to grade against, besides the reference answer: a text, or a list of criteria (bullets). Fills `{{rubric}}`. */
  rubric?: string | string[];
  /** Score at or above which the answer passes (default 0.5). */
  threshold?: number;
  /** Sampling temperature of the judge (default 0, for repeatable grades). */
  temperature?: number;
}

/** Fills `{{name}}` placeholders; unknown names stay as they are. */
export function fillTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (m, k: string) => (Object.hasOwn(values, k) ? values[k] : m));
}

/**
 * Grades answers with a model (any configured `Model`). A judge reply that is not the JSON asked for throws, so
 * the task is recorded as a scoring error rather than a silent fail. The score carries the judge's usage (tokens,
 * cost), which the bench summary reports apart from the agent's.
 */
export function llmJudge(model: Model, options: LlmJudgeOptions = {}): Scorer {
  const template = options.prompt ?? DEFAULT_JUDGE_PROMPT;
  const threshold = options.threshold ?? 0.5;
  const rubric = rubricText(options.rubric, 'Grade against this rubric:');
  return {
    name: `llm_judge(${model.id})`,
    async score({ task, answer, expected, signal }) {
      if (answer === null) return { score: 0, pass: false, explanation: 'no answer' };
      const prompt = fillTemplate(template, {
        question: task.objective,
        expected:
          expected === undefined ? '(none given)' : typeof expected === 'string' ? expected : JSON.stringify(expected),
        answer,
        rubric,
      });
      const reply = await askJudge(model, prompt, { signal, temperature: options.temperature });
      const raw = reply.json?.score;
      const score = typeof raw === 'number' ? raw : typeof raw === 'string' ? Number(raw) : Number.NaN;
      if (!Number.isFinite(score) || score < 0 || score > 1)
        throw new Error(`judge ${model.id} did not reply with {"score": 0..1, ...}: ${show(reply.text, 200)}`);
      const why = typeof reply.json?.explanation === 'string' ? reply.json.explanation : '';
      return {
        score,
        pass: score >= threshold,
        explanation: `judge: ${score}${why ? ` (${why})` : ''}`,
        usage: reply.usage,
      };
    },
  };
}
