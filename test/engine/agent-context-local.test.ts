import { describe, expect, it } from 'vitest';
import { baseState, decide, type Decision, type State, type Task } from '../../src/core/index.js';
import { AgentModule, type AgentContext } from '../../src/engine/agent-module.js';
import { Engine } from '../../src/engine/engine.js';

/** What the agent below keeps of a run: the steps it decided in it. */
class Steps {
  n = 0;
}
class Other {}

/** Ends its run after its third DECIDE, counting in the run's own `Steps`; lets other runs step in between. */
class CountingAgent extends AgentModule<State> {
  initState(task: Task) {
    return baseState(task, 10);
  }
  override async decide(state: State, _o: unknown, ctx: AgentContext): Promise<Decision> {
    const steps = ctx.local(Steps);
    expect(ctx.local(Steps)).toBe(steps); // one instance per run and class
    expect(ctx.local(Other)).not.toBe(steps);
    steps.n++;
    await new Promise((resolve) => setImmediate(resolve));
    return steps.n === 3 ? decide.final(`${state.task} after ${steps.n}`) : { mode: 'wait' };
  }
}

describe('AgentContext.local: what an agent keeps of a run lives in the run', () => {
  it('runs of one agent at once, under one run id even, each count their own steps', async () => {
    const agent = new CountingAgent();
    const engine = new Engine({ agent, trace: false, runId: 'same' });
    const [a, b, c] = await Promise.all([engine.run('a'), engine.run('b'), engine.run('c')]);
    expect([a.finalResult, b.finalResult, c.finalResult]).toEqual(['a after 3', 'b after 3', 'c after 3']);
    expect([a.steps, b.steps, c.steps]).toEqual([3, 3, 3]);
    // a later run of the agent starts from nothing
    expect((await engine.run('d')).finalResult).toBe('d after 3');
  });
});
