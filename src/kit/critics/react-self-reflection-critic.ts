import type { ActionResult, Critic, CriticVerdict, Decision, Model, State } from '../../core/index.js';
import { CriticVerdict as CriticVerdictSchema, nestsDeeperThan, responseText } from '../../core/index.js';

/** The system prompt of the critic's model call (documented in docs/critics.md). */
export const REFLECTION_PROMPT = [
  'You review one step of an autonomous agent working on a task.',
  'Judge whether the step moves toward a correct, complete answer. Reply with one JSON object and nothing else:',
  '{"verdict": "continue" | "retry" | "stop", "score": <0..1>, "feedback": "<what to fix, for retry>", "reason": "<why, for stop>"}',
  'continue: the step is sound. retry: the step is wrong or premature; feedback says what to do instead.',
  'stop: the task cannot be done (say why). Be strict about final answers that are not supported by the work shown.',
].join('\n');

/** Options of {@link reactSelfReflectionCritic}. */
export interface ReactSelfReflectionOptions {
  /** Which steps are judged: only final answers (default), or every step. */
  when?: 'final' | 'every';
  /** The reviewing model (default: the run's). Its calls count in the run's usage and budgets. */
  model?: Model;
  /** Consecutive retries (default 2). */
  maxRetries?: number;
  /** Replaces {@link REFLECTION_PROMPT}. */
  prompt?: string;
}

const OUTPUT_CAP = 1_500;

/** The step as the reviewer reads it. */
function describeStep(task: string, decision: Decision, results: readonly ActionResult[]): string {
  const cut = (t: string) =>
    t.length > OUTPUT_CAP ? `${t.slice(0, OUTPUT_CAP)}... (${t.length - OUTPUT_CAP} more chars)` : t;
  const lines = [`Task: ${task}`];
  if (decision.mode === 'final') lines.push(`The agent's final answer: ${decision.answer}`);
  if (decision.mode === 'act')
    for (const a of decision.actions) lines.push(`The agent called ${a.name} with ${JSON.stringify(a.args)}`);
  if (decision.rationale) lines.push(`Its reasoning: ${cut(decision.rationale)}`);
  for (const r of results)
    lines.push(
      `Result of ${r.name} ` +
        `(${r.status}): ${cut(r.status === 'error' ? (r.error ?? '') : typeof r.output === 'string' ? r.output : JSON.stringify(r.output))}`,
    );
  return lines.join('\n');
}

/** The verdict in the reviewer's reply: the first JSON object in it, checked; undefined when there is none. */
export function parseReflection(text: string): CriticVerdict | undefined {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(text.slice(start, end + 1));
  } catch {
    return undefined;
  }
  if (!raw || typeof raw !== 'object' || nestsDeeperThan(raw, 16)) return undefined;
  const r = raw as { verdict?: unknown; score?: unknown; feedback?: unknown; reason?: unknown };
  const score = typeof r.score === 'number' && Number.isFinite(r.score) ? { score: r.score } : {};
  const reason = typeof r.reason === 'string' && r.reason.trim() ? r.reason.trim() : undefined;
  const feedback = typeof r.feedback === 'string' && r.feedback.trim() ? r.feedback.trim() : undefined;
  const candidate =
    r.verdict === 'retry'
      ? { action: 'retry', feedback: feedback ?? reason, ...score, ...(reason ? { reason } : {}) }
      : r.verdict === 'stop'
        ? { action: 'stop', reason: reason ?? feedback, ...score }
        : r.verdict === 'continue'
          ? { action: 'continue', ...score, ...(reason ? { reason } : {}) }
          : undefined;
  const parsed = CriticVerdictSchema.safeParse(candidate);
  return parsed.success ? parsed.data : undefined;
}

/**
 * ReAct self-reflection: the model critiques the agent's last step (by default only final answers) and says
 * continue, retry with feedback, or stop. The call goes through the run's middleware (`ctx.callModel`, purpose
 * `critic`), so its tokens and cost count in the run's usage and budgets and replay serves it. A reply without a
 * readable verdict lets the step stand: the verdict is `continue` with the reason saying so, in the trace.
 */
export function reactSelfReflectionCritic<S extends State = State>(
  options: ReactSelfReflectionOptions = {},
): Critic<S> {
  const when = options.when ?? 'final';
  return {
    name: 'react-self-reflection',
    maxRetries: options.maxRetries ?? 2,
    async critique({ state, decision, results, signal, callModel }) {
      if (when === 'final' && decision.mode !== 'final')
        return { action: 'continue', reason: 'not a final answer: not reviewed' };
      const response = await callModel(
        {
          messages: [
            { role: 'system', content: options.prompt ?? REFLECTION_PROMPT },
            { role: 'user', content: [{ type: 'text', text: describeStep(state.task, decision, results) }] },
          ],
          maxOutputTokens: 400,
        },
        { signal, purpose: 'critic', ...(options.model ? { model: options.model } : {}) },
      );
      const text = responseText(response);
      return (
        parseReflection(text) ?? {
          action: 'continue',
          reason: `the reviewer's reply had no verdict: ${text.slice(0, 200)}`,
        }
      );
    },
  };
}
