import fc from 'fast-check';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  toolSpec,
  type HookEvent,
  type Message,
  type Model,
  type ModelStreamEvent,
  type Task,
  type ToolPart,
} from '../../src/core/index.js';
import { AgentModule, Engine, baseState, defineTool, emptyTokens, toModelMessages } from '../../src/index.js';
import { ModelInputBuilder } from '../../src/engine/model-input.js';
import { ReActAgent } from '../../src/kit/agents/index.js';
import { ScriptedModel } from '../../src/models/index.js';
import { nativeParser, reactParser } from '../../src/kit/parsers/index.js';
import { readTrace } from '../../src/trace/index.js';

const add = defineTool({
  id: 'add',
  description: 'Adds.',
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => String(a + b),
});
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

function nativeAgent(model: Model) {
  return new ReActAgent({ model, tools: [add], parser: nativeParser({ textMeans: 'final' }) });
}

describe('model path: messages with parts from the stream', () => {
  it('builds the assistant message from the stream and advances its tool parts; hooks see every stream event', async () => {
    const model = new ScriptedModel(
      [
        {
          reasoning: 'need a sum',
          text: 'adding',
          toolCalls: [{ id: 'c1', name: 'add', args: { a: 2, b: 3 } }],
          usage: { input: 10, output: 5 },
          cost: 0.5,
        },
        { text: '5' },
      ],
      { chunkSize: 3 },
    );
    const events: ModelStreamEvent['type'][] = [];
    const toolStates: string[] = [];
    const hook = (e: HookEvent) => {
      if (e.type === 'model_event' && e.step === 1) events.push(e.event.type);
      if (e.type === 'tool_state') toolStates.push(e.state.status);
    };
    const r = await new Engine({ agent: nativeAgent(model), hooks: [hook], trace: false }).run('2+3?');
    expect(r.finalResult).toBe('5');
    expect(events).toEqual([
      'step-start',
      'reasoning-start',
      'reasoning-delta',
      'reasoning-delta',
      'reasoning-delta',
      'reasoning-delta',
      'reasoning-end',
      'text-delta',
      'text-delta',
      'tool-input-start',
      ...Array(5).fill('tool-input-delta'),
      'tool-call',
      'step-finish',
    ]);
    expect(toolStates).toEqual(['pending', 'running', 'completed']);

    const [u, a] = r.state.messages;
    expect(u.role).toBe('user');
    expect(u.info).toMatchObject({ role: 'user', agent: 'ReActAgent', model: 'scripted:script', tools: { add: true } });
    expect(u.info.role === 'user' && u.info.system).toContain('function calling');
    expect(a.parts.map((p) => p.type)).toEqual(['step-start', 'reasoning', 'text', 'tool', 'step-finish']);
    const tool = a.parts[3] as ToolPart;
    expect(tool).toMatchObject({
      callID: 'c1',
      tool: 'add',
      origin: 'native',
      state: { status: 'completed', input: { a: 2, b: 3 }, output: '5' },
    });
    expect(a.parts[4]).toMatchObject({
      type: 'step-finish',
      reason: 'tool-calls',
      tokens: { input: 10, output: 5 },
      cost: 0.5,
    });
    expect(a.info).toMatchObject({ role: 'assistant', cost: 0.5, finish: 'tool-calls', model: 'scripted:script' });
  });

  it('times reasoning parts from reasoning-start/end events when the provider gives no times', async () => {
    const model: Model = {
      id: 'test:stream',
      async generate(_req, opts) {
        const emit = opts?.onEvent ?? (() => undefined);
        emit({ type: 'step-start' });
        emit({ type: 'reasoning-start', id: 'r' });
        emit({ type: 'reasoning-delta', id: 'r', delta: 'hmm' });
        await new Promise((res) => setTimeout(res, 15));
        emit({ type: 'reasoning-end', id: 'r', signature: 'sig' });
        emit({ type: 'text-delta', delta: 'Final Answer: ok' });
        emit({ type: 'step-finish', finishReason: 'stop', usage: emptyTokens(), cost: null });
        return {
          parts: [
            { type: 'reasoning', text: 'hmm', signature: 'sig' },
            { type: 'text', text: 'Final Answer: ok' },
          ],
          usage: emptyTokens(),
          cost: null,
          finishReason: 'stop',
        };
      },
    };
    const r = await new Engine({ agent: new ReActAgent({ model }), trace: false }).run('x');
    const reasoning = r.state.messages[1].parts.find((p) => p.type === 'reasoning');
    expect(reasoning).toMatchObject({ text: 'hmm', signature: 'sig' });
    const time = (reasoning as { time: { start: number; end: number } }).time;
    expect(time.end - time.start).toBeGreaterThanOrEqual(10);
  });

  it('adds tool parts for calls a text parser extracted, before step-finish, and renders their results as observations', async () => {
    const model = new ScriptedModel(['Thought: t\nAction: add(a=1, b=2)', 'Final Answer: 3']);
    const r = await new Engine({
      agent: new ReActAgent({ model, tools: [add], parser: reactParser() }),
      trace: false,
    }).run('1+2');
    const a = r.state.messages[1];
    expect(a.parts.map((p) => p.type)).toEqual(['step-start', 'text', 'tool', 'step-finish']);
    expect(a.parts[2]).toMatchObject({ origin: 'parsed', tool: 'add', state: { status: 'completed', output: '3' } });
    expect(model.requests[1].messages.slice(-2)).toEqual([
      { role: 'assistant', content: [{ type: 'text', text: 'Thought: t\nAction: add(a=1, b=2)' }] },
      { role: 'user', content: [{ type: 'text', text: 'Observation from add: 3' }] },
    ]);
  });

  it('a native call with broken JSON arguments: the tool part errors, the model gets the parse error naming the tool', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ id: 'c9', name: 'add', input: '{"a": 1, "b": ' }] },
      { text: 'sorry' },
    ]);
    const r = await new Engine({ agent: nativeAgent(model), trace: false }).run('x');
    expect(r.finalResult).toBe('sorry');
    const part = r.state.messages[1].parts.find((p) => p.type === 'tool') as ToolPart;
    expect(part.state.status).toBe('error');
    const tail = model.requests[1].messages.slice(-3);
    expect(tail[0]).toEqual({
      role: 'assistant',
      content: [{ type: 'tool-call', callId: 'c9', name: 'add', args: {} }],
    });
    expect(tail[1].role === 'tool' && tail[1].content[0]).toMatchObject({ callId: 'c9', isError: true });
    expect(tail[1].role === 'tool' && tail[1].content[0].output).toMatch(
      /^Not executed: The arguments of your call to add are not a valid JSON object/,
    );
    expect(tail[2].role === 'user' && tail[2].content[0].type === 'text' && tail[2].content[0].text).toMatch(
      /Error \(parse\).*call to add/,
    );
  });

  it('writes reasoning boundaries to the trace by default, and every stream event with streamDeltas', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'qitos-model-path-'));
    dirs.push(dir);
    const reply = { reasoning: 'r', text: 'Final Answer: 1' };
    const types = async (streamDeltas: boolean) => {
      const r = await new Engine({
        agent: new ReActAgent({ model: new ScriptedModel([reply]) }),
        trace: { dir, streamDeltas },
      }).run('x');
      return (await readTrace(r.traceDir!)).events.map((e) => e.type);
    };
    const plain = await types(false);
    // step-start/finish are left out by default: steps.jsonl holds each model step's response and usage
    expect(plain).toEqual(expect.arrayContaining(['reasoning-start', 'reasoning-end']));
    expect(plain).not.toContain('text-delta');
    const all = await types(true);
    expect(all).toEqual(
      expect.arrayContaining([
        'step-start',
        'reasoning-start',
        'reasoning-delta',
        'reasoning-end',
        'text-delta',
        'step-finish',
      ]),
    );
  });
});

describe('the system prompt of the model path', () => {
  class Plain extends AgentModule {
    initState(task: Task) {
      return baseState(task, 3);
    }
  }
  class NoSystem extends Plain {
    override buildSystemPrompt() {
      return undefined;
    }
  }

  it("is the parser's instructions for the agent's tools when the agent does not write one; undefined sends none", async () => {
    const parser = reactParser();
    const model = new ScriptedModel(['Final Answer: 3']);
    const r = await new Engine({ agent: new Plain({ model, parser, tools: [add] }), trace: false }).run('1+2');
    expect(r.stopReason).toBe('final');
    expect(model.requests[0]!.messages[0]).toEqual({ role: 'system', content: parser.instructions([toolSpec(add)]) });
    expect(model.requests[0]!.messages[0]!.content).toContain('add');

    const bare = new ScriptedModel(['Final Answer: 3']);
    await new Engine({ agent: new NoSystem({ model: bare, parser, tools: [add] }), trace: false }).run('1+2');
    expect(bare.requests[0]!.messages.map((m) => m.role)).toEqual(['user']);
  });
});

describe('ModelInputBuilder (incremental conversion)', () => {
  const msg = (i: number, text: string): Message =>
    i % 2 === 0
      ? {
          role: 'user',
          info: { id: `u${i}`, role: 'user', time: { created: 0 } },
          parts: [{ id: 'p', type: 'text', text }],
        }
      : {
          role: 'assistant',
          info: { id: `a${i}`, role: 'assistant', time: { created: 0 }, tokens: emptyTokens(), cost: null },
          parts: [{ id: 'p', type: 'text', text }],
        };

  it('equals a full conversion after any mix of appends, in-place-array growth and rewrites (property)', () => {
    type Op =
      | { kind: 'append'; text: string }
      | { kind: 'rewrite'; at: number; text: string }
      | { kind: 'truncate'; to: number };
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.string({ maxLength: 6 }).map((text) => ({ kind: 'append' as const, text })),
      fc.tuple(fc.nat(), fc.string({ maxLength: 6 })).map(([at, text]) => ({ kind: 'rewrite' as const, at, text })),
      fc.nat().map((to) => ({ kind: 'truncate' as const, to })),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 25 }), (ops) => {
        const builder = new ModelInputBuilder();
        let history: Message[] = [];
        let n = 0;
        for (const o of ops) {
          if (o.kind === 'append') history.push(msg(n++, o.text));
          else if (o.kind === 'rewrite' && history.length) {
            // compaction's contract: a new array with new objects for what changed
            history = history.map((m, i) => (i === o.at % history.length ? msg(i, o.text) : m));
          } else if (o.kind === 'truncate') history = history.slice(0, o.to % (history.length + 1));
          const got = builder.build('sys', history);
          expect(got.messages).toEqual([{ role: 'system', content: 'sys' }, ...toModelMessages(history)]);
          expect(got.messagesHash).toBe(new ModelInputBuilder().build('sys', history).messagesHash);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('gives the model a fresh array each call (a recorded request is not changed later)', () => {
    const builder = new ModelInputBuilder();
    const history = [msg(0, 'a')];
    const first = builder.build(undefined, history).messages;
    history.push(msg(1, 'b'));
    builder.build(undefined, history);
    expect(first).toHaveLength(1);
  });
});

class Counter extends AgentModule {
  initState(task: { id: string; objective: string }) {
    return baseState(task, 5);
  }
}

describe('model path errors', () => {
  it('an agent without a parser on the model path ends with a clear internal error', async () => {
    const r = await new Engine({ agent: new Counter({ model: new ScriptedModel(['x']) }), trace: false }).run('x');
    expect(r.stopReason).toBe('unrecoverable_error');
    expect(r.stopMessage).toMatch(/has no parser/);
  });
});
