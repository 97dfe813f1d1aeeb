import type { Model, Usage } from '../core/index.js';
import { addUsage, askJudge, rubricText } from './judge-call.js';
import { show } from './scorer.js';
import { fillTemplate } from './scorers/llm-judge.js';

/** Which of two answers a pairwise judge prefers. */
export type PairwiseWinner = 'a' | 'b' | 'tie';

/** The verdict on one pair: the winner after both orders, each order's vote, and what the two calls cost. */
export interface PairwiseVerdict {
  winner: PairwiseWinner;
  /** The vote with A shown first, and with B shown first (mapped back to a/b). */
  votes: [PairwiseWinner, PairwiseWinner];
  /** False when the two orders disagree (position bias): the verdict is then a tie. */
  consistent: boolean;
  explanation: string;
  usage: Usage;
}

/** What a pairwise judge is asked: the task, optionally a reference answer, and the two answers. */
export interface PairwiseInput {
  question: string;
  reference?: string;
  a: string;
  b: string;
  signal?: AbortSignal;
}

/** A judge of two answers to one task. */
export interface PairwiseJudge {
  readonly name: string;
  judge(input: PairwiseInput): Promise<PairwiseVerdict>;
}

/**
 * The pairwise judge's default prompt. `{{question}}`, `{{reference}}` (empty without one), `{{first}}`, `{{second}}`
 * and `{{rubric}}` (empty without one) are replaced; the judge replies `{"winner": "1" | "2" | "tie", "explanation"}`.
 */
export const DEFAULT_PAIRWISE_PROMPT = `You are comparing two answers by AI agents to the same task.

Task:
{{question}}
{{reference}}
Answer 1:
{{first}}

Answer 2:
{{second}}
{{rubric}}
Decide which answer is better: correct, complete and responsive to the task. The order of the answers and their
length say nothing about their quality. If they are equally good or equally bad, say "tie".

Reply with exactly one JSON object and nothing else:
{"winner": "1" or "2" or "tie", "explanation": "<one or two sentences>"}`;

/** Options of {@link pairwiseJudge}. */
export interface PairwiseJudgeOptions {
  /** Prompt template (placeholders in DEFAULT_PAIRWISE_PROMPT). */
  prompt?: string;
  /** What to compare on: a text, or a list of criteria. */
  rubric?: string | string[];
  temperature?: number;
}

/**
 * A position-swapped pairwise judge: every pair is judged twice, with A shown first and with B shown first, so a
 * judge that prefers whatever comes first cannot decide the comparison. A wins only when both orders say A (and B
 * likewise); any disagreement is a tie, marked inconsistent. A reply without the JSON asked for throws.
 */
export function pairwiseJudge(model: Model, options: PairwiseJudgeOptions = {}): PairwiseJudge {
  const template = options.prompt ?? DEFAULT_PAIRWISE_PROMPT;
  const rubric = rubricText(options.rubric, 'Compare on these criteria:');
  const ask = async (input: PairwiseInput, first: string, second: string) => {
    const prompt = fillTemplate(template, {
      question: input.question,
      reference: input.reference === undefined ? '' : `\nReference answer:\n${input.reference}\n`,
      first,
      second,
      rubric,
    });
    const reply = await askJudge(model, prompt, { signal: input.signal, temperature: options.temperature });
    const w = String(reply.json?.winner ?? '')
      .trim()
      .toLowerCase();
    const vote = w === '1' ? 'first' : w === '2' ? 'second' : w === 'tie' ? 'tie' : undefined;
    if (!vote)
      throw new Error(
        `pairwise judge ${model.id} did not reply with {"winner": "1" | "2" | "tie", ...}: ${show(reply.text, 200)}`,
      );
    return { vote, why: typeof reply.json?.explanation === 'string' ? reply.json.explanation : '', usage: reply.usage };
  };
  return {
    name: `pairwise_judge(${model.id})`,
    async judge(input) {
      const [ab, ba] = await Promise.all([ask(input, input.a, input.b), ask(input, input.b, input.a)]);
      const first: PairwiseWinner = ab.vote === 'first' ? 'a' : ab.vote === 'second' ? 'b' : 'tie';
      const second: PairwiseWinner = ba.vote === 'first' ? 'b' : ba.vote === 'second' ? 'a' : 'tie';
      const consistent = first === second;
      const explanation = consistent
        ? ab.why || ba.why
        : `the two orders disagree (A first: ${first}; B first: ${second}), counted as a ` +
          `tie${ab.why ? `. A first: ${ab.why}` : ''}${ba.why ? ` B first: ${ba.why}` : ''}`;
      return {
        winner: consistent ? first : 'tie',
        votes: [first, second],
        consistent,
        explanation,
        usage: addUsage(ab.usage, ba.usage),
      };
    },
  };
}
