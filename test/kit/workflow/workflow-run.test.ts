import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  defineTool,
  type GenerateOptions,
  type Model,
  type ModelRequest,
  type TaskInput,
} from '../../../src/core/index.js';
import { Engine } from '../../../src/engine/engine.js';
import { ScriptedModel } from '../../../src/kit/testing/index.js';
import {
  WorkflowAgent,
  WorkflowDefinition,
  readWorkflowTrace,
  reopenThread,
  runWorkflow,
  type ThreadState,
  type WorkflowAgentOptions,
  type WorkflowState,
} from '../../../src/kit/workflow/index.js';
import { stateAtStep } from '../../../src/trace/index.js';
import { WorkflowRun } from '../../../src/kit/workflow/workflow-run.js';
import { branchyWorkflow } from '../../helpers/workflow-fixtures.js';

// Per-run state lives in the run (issue #38, item 5): a WorkflowAgent keeps nothing of a run, so one agent serves
// runs at once, and a step cut between DECIDE and REDUCE leaves nothing behind for the next run.

const dir = mkdtempSync(join(tmpdir(), 'qitos-wf-run-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => void vi.useRealTimers());

/**
 * Decides which of several runs goes on: each run stops at `pause(who)` (in its tools, its model calls, its interrupt
 * answers and context processor, so both inside DECIDE and between DECIDE and REDUCE), and once every live run is
 * stopped the next number of `order` picks the one to go on. The runs' steps interleave exactly as `order` says.
 */
class Interleaver {
  readonly log: string[] = [];
  private readonly waiting = new Map<string, () => void>();
  private readonly live: Set<string>;
  private turn = 0;

  constructor(
    names: readonly string[],
    private readonly order: readonly number[] = [0],
  ) {
    this.live = new Set(names);
  }

  pause(who: string): Promise<void> {
    // Run `who` stopping twice at once means one run did the other's work (with its arguments): fail, not hang.
    if (this.waiting.has(who)) return Promise.reject(new Error(`run "${who}" is already stopped: runs mixed up`));
    return new Promise((resolve) => {
      this.waiting.set(who, resolve);
      this.release();
    });
  }

  finished(who: string): void {
    this.live.delete(who);
    this.release();
  }

  private release(): void {
    if (this.waiting.size === 0 || this.waiting.size < this.live.size) return;
    const names = [...this.waiting.keys()].sort();
    const who = names[(this.order[this.turn++ % this.order.length] ?? 0) % names.length];
    this.log.push(who);
    const go = this.waiting.get(who)!;
    this.waiting.delete(who);
    go();
  }
}

/**
 * start -> prep (tool) -> loop of 2 rounds { think (LLM with a tool loop) } -> ask (interrupt) -> tidy (context)
 * -> which (condition) -> done-a | done-other: every kind of work DECIDE hands to REDUCE (a model turn, a computed
 * node, an interrupt's answer, a processor's output), and tool calls between the two.
 */
const flow = WorkflowDefinition.create({
  name: 'shared-agent',
  nodes: [
    { kind: 'start', id: 's' },
    { kind: 'tool', id: 'prep', toolName: 'work', parameters: { who: '{{who}}', n: 0 } },
    { kind: 'loop-start', id: 'rounds', max: 2 },
    {
      kind: 'llm',
      id: 'think',
      userPrompt: '[{{who}}] think about {{prep}}',
      toolMode: 'auto',
      availableTools: ['work'],
      maxIterations: 3,
    },
    { kind: 'loop-end', id: 'again', loop: 'rounds' },
    { kind: 'interrupt', id: 'ask', prompt: '[{{who}}] colour?', variable: 'colour' },
    { kind: 'context', id: 'tidy', processor: 'lastTwo' },
    { kind: 'condition', id: 'which', expression: 'who == "a"', then: 'done-a', else: 'done-other' },
    { kind: 'end', id: 'done-a', result: 'A: {{think}} {{colour}}' },
    { kind: 'end', id: 'done-other', result: '{{who}}: {{think}} {{colour}}' },
  ],
  edges: [
    { from: 's', to: 'prep' },
    { from: 'prep', to: 'rounds' },
    { from: 'rounds', to: 'think' },
    { from: 'think', to: 'again' },
    { from: 'again', to: 'ask' },
    { from: 'ask', to: 'tidy' },
    { from: 'tidy', to: 'which' },
  ],
});

/** How many tools calls each run's model makes per visit of `think` before it answers. */
const CALLS: Record<string, number> = { a: 1, b: 2, c: 0 };

/** The user prompt of the LLM node's current visit says whose run it is: `[who] ...`. */
function whoOf(request: ModelRequest): string {
  const user = request.messages.find((m) => m.role === 'user');
  const text = typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content ?? '');
  return /\[(\w+)\]/.exec(text)?.[1] ?? '?';
}

/** A model whose reply depends only on the request (so a run's replies do not depend on the other runs). */
function modelFor(gate: Interleaver): Model {
  const inner = new ScriptedModel(
    [
      (request) => {
        const who = whoOf(request);
        const done = request.messages.filter((m) => m.role === 'tool').length;
        return done < (CALLS[who] ?? 0)
          ? {
              toolCalls: [{ id: `${who}-${done}`, name: 'work', args: { who, n: done + 1 } }],
              usage: { input: 10, output: 2 },
            }
          : { text: `${who} thought ${done}`, usage: { input: 12, output: 3 } };
      },
    ],
    { loop: true, recordRequests: false },
  );
  return {
    id: 'scripted:per-request',
    async generate(request: ModelRequest, options?: GenerateOptions) {
      await gate.pause(whoOf(request));
      return inner.generate(request, options);
    },
  };
}

function agentOptions(gate: Interleaver): WorkflowAgentOptions {
  const work = defineTool({
    id: 'work',
    description: 'Works for a run.',
    parameters: z.object({ who: z.string(), n: z.number() }),
    execute: async ({ who, n }) => {
      await gate.pause(who);
      return `${who}:${n}`;
    },
  });
  return {
    workflow: flow,
    model: modelFor(gate),
    tools: [work],
    onInterrupt: async ({ prompt }) => {
      const who = /\[(\w+)\]/.exec(prompt)![1];
      await gate.pause(who);
      return `${who}-blue`;
    },
    processors: {
      lastTwo: async (messages, p) => {
        await gate.pause(String(p.vars.who));
        return messages.slice(-2);
      },
    },
  };
}

/** What a run ended with, without wall-clock times (the only part that may differ between two runs of it). */
function outcome(r: { stopReason: string; finalResult: string | null; state: WorkflowState; steps: number }) {
  const { completed, ...thread } = r.state.thread as ThreadState;
  return {
    stopReason: r.stopReason,
    finalResult: r.finalResult,
    steps: r.steps,
    thread: { ...thread, completed: completed.map(({ executionTimeMs: _t, ...rec }) => rec) },
  };
}

/** The runs `whos` of one agent, interleaved by `order`; `runId`: every run under that one id (an engine that names its runs). */
async function together(whos: readonly string[], order: readonly number[], runId?: string) {
  const gate = new Interleaver(whos, order);
  const agent = new WorkflowAgent(agentOptions(gate));
  const results = await Promise.all(
    whos.map(async (who) => {
      const engine = new Engine<WorkflowState>({ agent, trace: false, ...(runId ? { runId } : {}) });
      const r = await engine.run({ id: `job-${who}`, objective: 'shared', inputs: { who } });
      gate.finished(who);
      return outcome(r);
    }),
  );
  return { results, log: gate.log };
}

/** Run `who` on an agent of its own, nothing else running. */
async function alone(who: string) {
  const gate = new Interleaver([who]);
  const engine = new Engine<WorkflowState>({ agent: new WorkflowAgent(agentOptions(gate)), trace: false });
  const r = await engine.run({ id: `job-${who}`, objective: 'shared', inputs: { who } });
  gate.finished(who);
  return outcome(r);
}

describe('one WorkflowAgent serving several runs', () => {
  it('two runs whose steps alternate each get exactly what they get alone, under distinct or the same run ids', async () => {
    const a = await alone('a');
    const b = await alone('b');
    expect(a.finalResult).toBe('A: a thought 1 a-blue');
    expect(b.finalResult).toBe('b: b thought 2 b-blue');
    // order [0, 1]: a, then b, then a, ...: each run's DECIDE and tool calls fall between the other's DECIDE and REDUCE
    for (const runId of [undefined, 'nightly']) {
      const { results, log } = await together(['a', 'b'], [0, 1], runId);
      expect(log.slice(0, 6)).toEqual(['a', 'b', 'a', 'b', 'a', 'b']);
      expect(results).toEqual([a, b]);
    }
  });

  it('any interleaving of two or three runs gives each run what it gets alone', async () => {
    const solo = { a: await alone('a'), b: await alone('b'), c: await alone('c') };
    await fc.assert(
      fc.asyncProperty(
        fc.shuffledSubarray(['a', 'b', 'c'], { minLength: 2 }),
        fc.array(fc.nat(5), { minLength: 1, maxLength: 40 }),
        fc.boolean(),
        async (whos, order, sameId) => {
          const { results } = await together(whos, order, sameId ? 'shared-id' : undefined);
          expect(results).toEqual(whos.map((w) => solo[w as keyof typeof solo]));
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('a run cut between DECIDE and REDUCE', () => {
  /** s -> fetch (tool) -> ask (LLM that calls `slow`) -> e; `slow` aborts the run it is called in, the first time. */
  const cut = WorkflowDefinition.create({
    name: 'cut',
    nodes: [
      { kind: 'start', id: 's' },
      { kind: 'tool', id: 'fetch', toolName: 'echo', parameters: { text: 'fetched' } },
      { kind: 'llm', id: 'ask', userPrompt: 'go on from {{fetch}}', toolMode: 'auto', availableTools: ['slow'] },
      { kind: 'end', id: 'e', result: '{{fetch}} / {{ask}}' },
    ],
    edges: [
      { from: 's', to: 'fetch' },
      { from: 'fetch', to: 'ask' },
      { from: 'ask', to: 'e' },
    ],
  });
  const echo = defineTool({
    id: 'echo',
    description: 'Echoes.',
    parameters: z.object({ text: z.string() }),
    execute: ({ text }) => text,
  });
  /**
   * `slow` aborts `kill` on its first call (a kill while the LLM node's call runs) and then never ends; its other
   * calls (all of them without `kill`) call `onCall` and end.
   */
  function slowTool(kill: AbortController | undefined, onCall: () => void = () => {}) {
    let killed = false;
    return defineTool({
      id: 'slow',
      description: 'Takes long.',
      parameters: z.object({}),
      execute: () => {
        if (!kill || killed) return (onCall(), 'slow done');
        killed = true;
        kill.abort();
        return new Promise<string>(() => {});
      },
    });
  }
  const replies = () => [
    { toolCalls: [{ id: 'c1', name: 'slow', args: {} }] }, // the turn whose call is cut
    { toolCalls: [{ id: 'c2', name: 'slow', args: {} }] },
    'answered',
  ];

  it('leaves nothing for the next run of the agent under the same id, which starts at a tool node', async () => {
    // The thread starts at `fetch` (as a fork's branch starts at its first node), a tool node: its DECIDE hands REDUCE
    // nothing, so a turn the cut run's DECIDE left behind would be taken for this step's.
    const controller = new AbortController();
    const options = (model: Model, kill?: AbortController): WorkflowAgentOptions => ({
      workflow: cut,
      model,
      tools: [echo, slowTool(kill)],
      entry: 'fetch',
    });
    const agent = new WorkflowAgent(options(new ScriptedModel(replies()), controller));
    const engine = new Engine<WorkflowState>({ agent, trace: false, runId: 'job' });
    const first = await engine.run('first', { signal: controller.signal });
    expect(first.stopReason).toBe('interrupted');
    expect(first.state.thread.current).toBe('ask'); // the cut step never reached REDUCE
    const second = await engine.run('second');
    const fresh = await new Engine<WorkflowState>({
      agent: new WorkflowAgent(options(new ScriptedModel(replies().slice(1)))),
      trace: false,
      runId: 'job',
    }).run('second');
    expect(second.state.thread.completed.map((c) => `${c.node}:${c.kind}`)).toEqual(['fetch:tool', 'ask:llm', 'e:end']);
    expect(outcome(second)).toEqual(outcome(fresh));
    expect(second.finalResult).toBe('fetched / answered');
  });

  it("the node clock of the cut run does not run on in the agent's next run of the node", async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(1_000_000);
    const controller = new AbortController();
    // the second call of `slow` takes 7 ms of the (fake) clock
    const slow = slowTool(controller, () => vi.setSystemTime(Date.now() + 7));
    const agent = new WorkflowAgent({ workflow: cut, model: new ScriptedModel(replies()), tools: [echo, slow] });
    const engine = new Engine<WorkflowState>({ agent, trace: false, runId: 'job' });
    const first = await engine.run('first', { signal: controller.signal });
    expect(first.stopReason).toBe('interrupted');
    // a minute later the same agent resumes the run, under its id, at the node that was cut
    vi.setSystemTime(1_060_000);
    const state = reopenThread(structuredClone(first.state), {});
    const second = await engine.run('first', { resumeFrom: { state, step: first.state.step - 1 } });
    const ask = second.state.thread.completed.find((c) => c.node === 'ask')!;
    expect(ask.outputs).toMatchObject({ text: 'answered', iterations: 2 });
    expect(ask.executionTimeMs).toBe(7);
  });
});

describe('a resumed fork on one agent', () => {
  it("every run of an agent that resumes a killed run reuses that run's finished branch", async () => {
    const branchy = WorkflowDefinition.create(branchyWorkflow());
    const calls: string[] = [];
    let kill: AbortController | undefined = new AbortController();
    const count = defineTool({
      id: 'count',
      description: 'Counts.',
      parameters: z.object({ node: z.string() }),
      execute: ({ node }) => {
        calls.push(node);
        if (kill && node === 'b2') {
          kill.abort();
          return new Promise<string>(() => {});
        }
        return `${node} ran`;
      },
    });
    const killed = await runWorkflow(branchy, { tools: [count], trace: { dir }, signal: kill.signal });
    expect(killed.run.stopReason).toBe('interrupted');
    kill = undefined;
    calls.length = 0;
    // what resumeWorkflow does, with one agent for two runs
    const trace = await readWorkflowTrace(killed.traceDir!, branchy, false);
    const last = trace.steps[trace.steps.length - 1].step;
    const recorded = stateAtStep(trace, last) as WorkflowState;
    const agent = new WorkflowAgent({
      workflow: branchy,
      tools: [count],
      resumeOf: { runId: killed.run.runId, traceDir: trace.dir, node: 'fan', afterStep: last },
    });
    const engine = new Engine<WorkflowState>({ agent, trace: false });
    const resume = () =>
      engine.run(trace.manifest.task as unknown as TaskInput, {
        resumeFrom: { state: reopenThread(structuredClone(recorded), {}), step: last },
      });
    const runs = await Promise.all([resume(), resume()]);
    for (const r of runs) {
      expect(r.state.thread.status).toBe('completed');
      const fan = r.state.thread.completed.find((c) => c.node === 'fan')!.outputs as {
        branches: Array<{ branch: string; reused?: boolean }>;
      };
      expect(fan.branches.map((b) => [b.branch, b.reused ?? false])).toEqual([
        ['a', true],
        ['b1', false],
      ]);
    }
    // a and b1 finished before the kill: each run only resumes b at b2, then goes on after the join
    expect(calls.sort()).toEqual(['after', 'after', 'b2', 'b2']);
  });
});

describe('WorkflowRun', () => {
  it("hands DECIDE's work to the same step's REDUCE only, once", () => {
    const run = new WorkflowRun();
    run.carry(3, 'n', { turn: 1 });
    expect(run.take(3, 'm')).toBeUndefined(); // another node: not its work
    run.carry(3, 'n', { turn: 1 });
    expect(run.take(4, 'n')).toBeUndefined(); // a later step: the step that made it never reached REDUCE
    expect(run.take(4, 'n')).toBeUndefined();
    run.carry(5, 'n', { turn: 2 });
    expect(run.take(5, 'n')).toEqual({ turn: 2 });
    expect(run.take(5, 'n')).toBeUndefined();
  });

  it("times a node from its first DECIDE over retries and turns, and forgets another node's clock", () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(100);
    const run = new WorkflowRun();
    run.enter('a');
    vi.setSystemTime(130);
    run.enter('a'); // a retry: the clock runs on
    vi.setSystemTime(150);
    expect(run.executionTime('b')).toEqual({}); // not b's clock
    expect(run.executionTime('a')).toEqual({ executionTimeMs: 50 });
    expect(run.executionTime('a')).toEqual({}); // once
    run.enter('a');
    run.enter('b');
    vi.setSystemTime(160);
    expect(run.executionTime('b')).toEqual({ executionTimeMs: 10 });
  });
});
