import { describe, expect, it } from 'vitest';
import {
  AgentModule,
  Engine,
  baseState,
  type ActionResult,
  type AgentContext,
  type Decision,
  type State,
  type Task,
} from '../../src/index.js';
import { jsonParser } from '../../src/kit/parsers/index.js';
import { windowMemory } from '../../src/kit/memory/index.js';
import { ScriptedModel } from '../../src/models/index.js';
import { ReplayMemory, ReplayModel, readTrace } from '../../src/trace/index.js';
import { tempDir } from '../helpers/kernel-fixtures.js';

/** A model-path agent that notes what it did in the run's memory each step: it writes no retrieval itself. */
class NotingAgent extends AgentModule<State> {
  initState(task: Task): State {
    return baseState(task, 5);
  }
  override buildSystemPrompt(): string {
    return 'You are a test agent.';
  }
  override async reduce(state: State, _o: unknown, _d: Decision, _r: ActionResult[], ctx: AgentContext) {
    await ctx.memory!.append({ role: 'note', content: `did step ${ctx.step}` });
    return state;
  }
}

const replies = () => ['{"wait": true}', '{"wait": true}', '{"final_answer": "ok"}'];

describe('memory retrieval into the model input (memoryInput)', () => {
  it('retrieves before each model call, shows it to the model after the system prompt, and records it in the step', async () => {
    const model = new ScriptedModel(replies());
    const agent = new NotingAgent({ model, parser: jsonParser() });
    const dir = await tempDir();
    const r = await new Engine({ agent, memory: () => windowMemory(), memoryInput: { k: 2 }, trace: { dir } }).run(
      'remember',
    );
    expect([r.stopReason, r.stopMessage]).toEqual(['final', expect.any(String)]);
    const system = (i: number) => model.requests[i].messages.find((m) => m.role === 'system')?.content;
    expect(system(0)).toBe('You are a test agent.'); // nothing in memory yet
    expect(system(2)).toBe(
      'You are a test agent.\n\nRelevant memory (retrieved for this step):\n- [step 2, note] did step 2\n- [step 1, note] did step 1',
    );
    const trace = await readTrace(r.traceDir!);
    expect(trace.steps[0].model!.memory).toBeUndefined();
    expect(trace.steps[2].model!.memory).toEqual({
      query: 'remember',
      records: [
        { step: 2, role: 'note', content: 'did step 2' },
        { step: 1, role: 'note', content: 'did step 1' },
      ],
    });
    // ... and a replay serves the recorded reads back: the same requests, no drift
    const replayModel = new ReplayModel(trace.steps, { id: 'replay', events: trace.events });
    const replayed = await new Engine({
      agent: new NotingAgent({ model: replayModel, parser: jsonParser() }),
      memory: new ReplayMemory(trace.events),
      memoryInput: { k: 2 },
      trace: false,
    }).run('remember');
    expect(replayed.finalResult).toBe('ok');
    expect(replayModel.drifts).toEqual([]);
  });

  it('a custom query and rendering; no memory is refused with the option named', async () => {
    const model = new ScriptedModel(replies());
    const queries: string[] = [];
    await new Engine({
      agent: new NotingAgent({ model, parser: jsonParser() }),
      memory: () => windowMemory(),
      memoryInput: {
        k: 1,
        query: (s) => (queries.push(`q${s.step}`), `q${s.step}`),
        render: (rs) => `MEM: ${rs.map((x) => x.content).join('; ')}`,
      },
      trace: false,
    }).run('t');
    expect(queries).toEqual(['q1', 'q2', 'q3']); // the step being decided
    expect(model.requests[1].messages[0]).toEqual({
      role: 'system',
      content: 'You are a test agent.\n\nMEM: did step 1',
    });
    expect(
      () => new Engine({ agent: new NotingAgent({ model: new ScriptedModel([]) }), memoryInput: {}, trace: false }),
    ).toThrow("EngineOptions.memoryInput retrieves from the run's memory: pass a memory too (EngineOptions.memory)");
  });
});
