import type { ThreadState } from '../thread-state.js';
import { WorkflowError } from '../workflow-error.js';
import { computedHandler, done } from './computed-work.js';
import type { NodeHost } from './node-host.js';
import type { NodeOf } from './node-handler.js';

type JoinNode = NodeOf<'join'>;

/**
 * A join: merges what its fork's branches set, by `merge`: `all` (each branch's variables under `output`), `first`
 * (the first branch to finish, its variables into the thread's), or `custom` (the agent's reducer of that name).
 */
export const joinHandler = computedHandler<JoinNode>((node, s) => {
  const outcomes = s.thread.forks[node.fork];
  if (!outcomes)
    throw new WorkflowError(`join "${node.id}" was reached without its fork "${node.fork}" having run in this thread`, {
      nodeId: node.id,
    });
  const ok = outcomes.filter((o) => o.status === 'done');
  const inputs = {
    fork: node.fork,
    merge: node.merge,
    branches: outcomes.map((o) => ({ branch: o.branch, status: o.status })),
  };
  const drop = (t: ThreadState) => void delete t.forks[node.fork];
  if (node.merge === 'first') {
    const first = [...ok].sort((a, b) => a.finished - b.finished)[0];
    const vars = first?.vars ?? {};
    return done(inputs, { branch: first?.branch ?? null, vars }, s.next(node), (t) => {
      Object.assign(t.vars, structuredClone(vars));
      drop(t);
    });
  }
  let value: unknown;
  if (node.merge === 'all') value = Object.fromEntries(ok.map((o) => [o.branch, o.vars]));
  else {
    const reducer = s.host.reducers?.[node.reducer!];
    if (!reducer)
      throw new WorkflowError(
        `join "${node.id}": reducer "${node.reducer}" is not registered on the WorkflowAgent (options.reducers)`,
        { nodeId: node.id, field: 'reducer' },
      );
    value = reducer(Object.fromEntries(ok.map((o) => [o.branch, o])), s.thread.vars);
  }
  const out = node.output ?? node.id;
  return done(inputs, { [out]: value }, s.next(node), (t) => {
    t.vars[out] = structuredClone(value);
    drop(t);
  });
}, checkReducer);

/** A custom join's reducer must be registered on the agent. */
function checkReducer(node: JoinNode, host: NodeHost): void {
  if (node.merge === 'custom' && !host.reducers?.[node.reducer!])
    throw new WorkflowError(`node "${node.id}": reducer: "${node.reducer}" is not registered (options.reducers)`, {
      nodeId: node.id,
      field: 'reducer',
    });
}
