import type { ActionResult, Critic, CritiqueRecord, Decision, State, StopVerdict } from '../core/index.js';
import { CriticVerdict, QitosError, formatZodIssue, newId } from '../core/index.js';
import type { ActiveRun } from './run-context.js';

/** What the CRITIQUE phase decided for the step. */
export interface CritiqueOutcome {
  records: CritiqueRecord[];
  /** A critic asked to stop the run. */
  stop: StopVerdict | undefined;
  /** A critic asked for a retry (its feedback is in the history): a final answer does not end the run. */
  retry: boolean;
}

/**
 * CRITIQUE: each critic judges the step, in order, until one says `stop` or `retry`. A retry adds the critic's
 * feedback to the history as a user message (kernel-written, marked synthetic) unless the critic is past its
 * `maxRetries` consecutive retries: then the verdict is recorded as exhausted and the step stands. Every verdict
 * is a `critic` event and goes into the step record.
 */
export async function critique<S extends State>(
  critics: readonly Critic<S>[],
  { run, services }: ActiveRun<S>,
  decision: Decision,
  results: ActionResult[],
): Promise<CritiqueOutcome> {
  const records: CritiqueRecord[] = [];
  for (const critic of critics) {
    const retries = run.criticRetries[critic.name] ?? 0;
    const raw = await critic.critique({
      runId: run.runId,
      step: run.step,
      state: run.state,
      decision,
      results,
      retries,
      signal: services.signal,
      callModel: services.callModel,
    });
    const parsed = CriticVerdict.safeParse(raw);
    if (!parsed.success)
      throw new QitosError(
        'internal',
        `critic ${critic.name} returned an invalid verdict: ${formatZodIssue(parsed.error.issues[0], '(verdict)')}`,
      );
    const verdict = parsed.data;
    const exhausted = verdict.action === 'retry' && retries >= (critic.maxRetries ?? 2);
    const record: CritiqueRecord = { critic: critic.name, verdict, ...(exhausted ? { exhausted } : {}) };
    records.push(record);
    services.events.emit({
      type: 'critic',
      step: run.step,
      critic: critic.name,
      verdict,
      ...(exhausted ? { exhausted } : {}),
    });
    if (verdict.action === 'stop')
      return {
        records,
        stop: { reason: 'critic_stop', message: `critic ${critic.name}: ${verdict.reason}` },
        retry: false,
      };
    if (verdict.action === 'continue' || exhausted) {
      run.criticRetries[critic.name] = 0;
      continue;
    }
    run.criticRetries[critic.name] = retries + 1;
    run.state.messages.push({
      role: 'user',
      info: { id: newId('msg'), role: 'user', time: { created: Date.now() }, agent: services.agent.name },
      parts: [
        {
          id: newId('prt'),
          type: 'text',
          synthetic: true,
          text: `Critic ${critic.name} (retry ${retries + 1} of ${critic.maxRetries ?? 2}): ${verdict.feedback}`,
        },
      ],
    });
    return { records, stop: undefined, retry: true };
  }
  return { records, stop: undefined, retry: false };
}
