import { renderTemplate } from '../render-template.js';
import { computedHandler, done, type ComputedWork } from './computed-work.js';
import type { NodeOf } from './node-handler.js';

/**
 * An interrupt node: goes on at once when its variable is set; else asks the agent's `onInterrupt`; else the run's
 * approver, as a permission ask is asked (an approval's message is the value, a refusal fails the node); else the
 * thread stops `waiting` on the node until a resume sets the variable.
 */
export const interruptHandler = computedHandler<NodeOf<'interrupt'>>(async (node, s): Promise<ComputedWork> => {
  const { thread: t, ctx } = s;
  const onInterrupt = s.host.onInterrupt;
  if (Object.hasOwn(t.vars, node.variable))
    return {
      status: 'skipped',
      inputs: { variable: node.variable },
      outputs: { value: t.vars[node.variable], given: 'before' },
      next: s.next(node),
    };
  const prompt = renderTemplate(node.prompt, t.vars, node.id);
  const waiting: ComputedWork = {
    status: 'skipped',
    inputs: { prompt, variable: node.variable },
    outputs: null,
    next: node.id,
    waits: true,
    apply: (th) => (
      (th.status = 'waiting'),
      (th.reason = `node "${node.id}" asks: ${prompt} (set the variable "${node.variable}" and resume)`)
    ),
  };
  if (!onInterrupt && ctx.askHuman) {
    // Asked as a permission ask is: the terminal, the server's pending approvals, onApproval; its timeout.
    const answer = await ctx.askHuman({
      key: 'interrupt',
      title: `node "${node.id}" asks: ${prompt}`,
      subjects: [node.variable],
      input: { node: node.id, variable: node.variable, prompt },
    });
    if (answer.decidedBy === 'default') return waiting; // no one could answer: resume sets the variable
    const inputs = { prompt, variable: node.variable };
    if (answer.outcome === 'allow') {
      const value = answer.message ?? true;
      return done(inputs, { value }, s.next(node), (th) => {
        th.vars[node.variable] = value;
      });
    }
    const why =
      answer.decidedBy === 'timeout'
        ? 'no answer in time'
        : answer.decidedBy === 'abort'
          ? 'the run was stopped'
          : 'rejected';
    const error = `the interrupt was refused (${why})${answer.message ? `: ${answer.message}` : ''}`;
    return { ...waiting, apply: (_th, step) => step.fail(node, inputs, error) };
  }
  if (!onInterrupt) return waiting;
  const value = await onInterrupt({ node: node.id, prompt, variable: node.variable });
  return done(
    { prompt, variable: node.variable },
    { value },
    s.next(node),
    (th) => void (th.vars[node.variable] = value),
  );
});
