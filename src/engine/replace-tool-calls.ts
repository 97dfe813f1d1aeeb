import type { AssistantMessage, Part, SimpleDecision } from '../core/index.js';
import { newId } from '../core/index.js';

/**
 * After a decision was edited at a breakpoint, the step's reply in the history calls what the edited decision
 * calls: its tool parts are replaced by one pending part per edited action (which ACT's results then complete),
 * so the model sees the calls that ran and their results, not calls that never ran. Text and reasoning stay.
 */
export function replaceToolCalls(message: AssistantMessage, decision: SimpleDecision): void {
  const origin = message.parts.find((p) => p.type === 'tool')?.origin ?? 'native';
  const kept: Part[] = message.parts.filter((p) => p.type !== 'tool');
  const created = Date.now();
  const calls: Part[] =
    decision.mode === 'act'
      ? decision.actions.map((a) => ({
          id: newId('prt'),
          type: 'tool',
          callID: a.id,
          tool: a.name,
          origin,
          state: { status: 'pending', input: a.args, time: { created } },
        }))
      : [];
  // Before the step-finish part, where the reply's calls go.
  const at = kept.length && kept[kept.length - 1].type === 'step-finish' ? kept.length - 1 : kept.length;
  kept.splice(at, 0, ...calls);
  message.parts = kept;
}
