import { describe, expect, it } from 'vitest';
import {
  AgentModule,
  Engine,
  baseState,
  decide,
  type AgentContext,
  type Decision,
  type State,
  type Task,
} from '../../../src/index.js';
import { ScriptedModel } from '../../../src/kit/testing/index.js';
import { summaryMemory, MEMORY_SUMMARY_PROMPT } from '../../../src/kit/memory/index.js';
import { readTrace } from '../../../src/trace/index.js';
import { tempDir } from '../../helpers/kernel-fixtures.js';

/** Writes one note per step and, at the last step, answers with what `retrieve` returns. */
class DiaryAgent extends AgentModule<State> {
  constructor(private readonly steps: number) {
    super();
  }
  initState(task: Task) {
    return baseState(task, 100);
  }
  override async decide(state: State, _o: unknown, ctx: AgentContext): Promise<Decision> {
    await ctx.memory!.append({ role: 'agent', content: `fact ${state.step}` });
    if (state.step < this.steps) return decide.wait();
    return decide.final((await ctx.memory!.retrieve('', 3)).map((r) => `${r.role}:${r.content}`).join(' | '));
  }
}

const summaryOf = (req: { messages: Array<{ role: string; content: unknown }> }) => {
  const user = req.messages[1].content as Array<{ text: string }>;
  const facts = [...user[0].text.matchAll(/fact (\d+)/g)].map((m) => m[1]);
  return { text: `facts ${facts[0]}..${facts[facts.length - 1]}`, usage: { input: 100, output: 10 } };
};

describe('summaryMemory', () => {
  it("folds the oldest records into a rolling summary through the run's model; its tokens count in the run's usage", async () => {
    const model = new ScriptedModel([summaryOf], { loop: true });
    const dir = await tempDir();
    const r = await new Engine({
      agent: new DiaryAgent(12),
      model,
      memory: () => summaryMemory({ keepRecent: 3, foldBatch: 4 }),
      trace: { dir },
    }).run('diary');
    expect(r.stopReason).toBe('final');
    // 12 records: folds at 7 (1..4) and 11 (5..8); 9..12 stay (4 < 3 + 4).
    expect(r.finalResult).toBe('summary:facts 5..8 | agent:fact 12 | agent:fact 11');
    expect(model.requests).toHaveLength(2);
    expect(model.requests[0].messages[0]).toEqual({ role: 'system', content: MEMORY_SUMMARY_PROMPT });
    expect((model.requests[1].messages[1].content as Array<{ text: string }>)[0].text).toContain(
      'Current summary:\nfacts 1..4',
    );
    expect(r.usage.tokens.input).toBe(200);
    const calls = (await readTrace(r.traceDir!)).events.filter((e) => e.type === 'model_call');
    expect(calls.map((e) => (e.data as { purpose: string }).purpose)).toEqual(['memory-summary', 'memory-summary']);
  });

  it('a token budget stops the run when the summary calls spend it', async () => {
    const model = new ScriptedModel([summaryOf], { loop: true });
    const r = await new Engine({
      agent: new DiaryAgent(50),
      model,
      memory: () => summaryMemory({ keepRecent: 2, foldBatch: 2 }),
      budget: { maxTokens: 250 },
      trace: false,
    }).run('diary');
    expect(r.stopReason).toBe('budget_tokens');
    expect(r.usage.tokens.input + r.usage.tokens.output).toBeGreaterThanOrEqual(250);
    expect(r.steps).toBeLessThan(50);
  });

  it('an empty summary is an error the run records, not a silently lost history', async () => {
    const model = new ScriptedModel([{ text: '  ' }], { loop: true });
    const r = await new Engine({
      agent: new DiaryAgent(10),
      model,
      memory: () => summaryMemory({ keepRecent: 1, foldBatch: 1 }),
      maxRecoveries: 0,
      trace: false,
    }).run('diary');
    expect(r.failures[0].message).toMatch(/summary model returned an empty summary/);
  });
});
