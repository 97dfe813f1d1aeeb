import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Decision, Parser, ResponsePart, State, Task } from '../../src/core/index.js';
import { ParseError, baseState, defineTool, responseText } from '../../src/core/index.js';
import { AgentModule } from '../../src/engine/agent-module.js';
import { Engine } from '../../src/engine/engine.js';
import { jsonParser, nativeParser as kitNativeParser } from '../../src/kit/parsers/index.js';
import { createModel } from '../../src/models/index.js';
import { readTrace } from '../../src/trace/index.js';
import {
  startFakeAnthropic,
  startFakeOpenAI,
  type FakeServer,
  type OpenAIReply,
  type RecordedRequest,
} from '../../src/kit/testing/fake-llm-servers.js';

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const add = defineTool({
  id: 'add',
  description: 'Add two numbers',
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => String(a + b),
});

/**
 * A minimal native-tool-call parser (the kit's own lives with the parsers): tool calls become actions keyed
 * by their call id; a call whose arguments did not parse is a ParseError the model is shown.
 */
const nativeParser: Parser = {
  name: 'native-e2e',
  native: true,
  parse(response) {
    const calls = response.parts.filter(
      (p): p is Extract<ResponsePart, { type: 'tool-call' }> => p.type === 'tool-call',
    );
    if (!calls.length) return { mode: 'final', answer: responseText(response) };
    const bad = calls.find((c) => !c.args);
    if (bad) return new ParseError(`the arguments of ${bad.name} are not valid JSON: ${bad.input}`, bad.input);
    return { mode: 'act', actions: calls.map((c) => ({ id: c.callId, name: c.name, args: c.args! })) };
  },
  format(decision: Decision): ResponsePart[] {
    if (decision.mode === 'final') return [{ type: 'text', text: decision.answer }];
    if (decision.mode === 'act')
      return decision.actions.map((a) => ({
        type: 'tool-call',
        callId: a.id,
        name: a.name,
        input: JSON.stringify(a.args),
        args: a.args,
      }));
    return [];
  },
  instructions: () => '',
};

class Calculator extends AgentModule<State> {
  initState(task: Task): State {
    return baseState(task, 6);
  }
  override buildSystemPrompt(): string {
    return this.parser?.native
      ? 'Use the add tool.'
      : `Use the add tool.\n${this.parser!.instructions(this.tools.specs())}`;
  }
}

const lastTool = (req: RecordedRequest) => req.body.messages.filter((m: { role: string }) => m.role === 'tool').at(-1);

describe('Engine + OpenAICompatibleModel against a fake server', () => {
  it('runs native tool calls end to end: a malformed call is fed back, a good one runs, then the answer', async () => {
    const script: OpenAIReply[] = [
      { toolCalls: [{ id: 'call_bad', name: 'add', arguments: '{"a": 2, "b": ' }] },
      { reasoning: 'Fix the JSON.', toolCalls: [{ id: 'call_ok', name: 'add', arguments: '{"a": 2, "b": 3}' }] },
      { text: 'The sum is 5.' },
    ];
    const srv = await startFakeOpenAI(script);
    servers.push(srv);
    const model = createModel('openai:gpt-4o-mini', { baseURL: srv.url, apiKey: 'k', env: {} });
    const agent = new Calculator({ model, parser: nativeParser, tools: [add] });
    const result = await new Engine({ agent, trace: false }).run('What is 2 + 3?');

    expect(result.stopReason).toBe('final');
    expect(result.finalResult).toBe('The sum is 5.');
    expect(srv.requests).toHaveLength(3);
    expect(srv.requests[0].body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(['add']);

    // The malformed call went back to the model as an error result for its call id, plus the parse error.
    expect(lastTool(srv.requests[1])).toMatchObject({
      role: 'tool',
      tool_call_id: 'call_bad',
      content: expect.stringMatching(/^Error: .*not valid JSON/),
    });
    expect(JSON.stringify(srv.requests[1].body.messages)).toMatch(/Error \(parse\)/);
    // The good call ran and its result answered its id.
    expect(lastTool(srv.requests[2])).toEqual({ role: 'tool', tool_call_id: 'call_ok', content: '5' });
    const assistant = srv.requests[2].body.messages.filter((m: { role: string }) => m.role === 'assistant').at(-1);
    expect(assistant.tool_calls).toEqual([
      { id: 'call_ok', type: 'function', function: { name: 'add', arguments: '{"a":2,"b":3}' } },
    ]);

    expect(result.usage.modelCalls).toBe(3);
    expect(result.usage.tokens.input).toBe(30);
    expect(result.usage.cost).not.toBeNull();
  });

  it('runs a text (JSON) parser end to end', async () => {
    const srv = await startFakeOpenAI((req, i) =>
      i === 0
        ? { text: '{"thought": "add them", "action": {"name": "add", "args": {"a": 40, "b": 2}}}' }
        : { text: `{"final_answer": "${req.body.messages.at(-1).content.match(/\d+/)?.[0]}"}` },
    );
    servers.push(srv);
    const model = createModel('ollama:qwen2.5', { baseURL: srv.url, env: {} });
    const agent = new Calculator({ model, parser: jsonParser(), tools: [add] });
    const result = await new Engine({ agent, trace: false }).run('What is 40 + 2?');
    expect(result.stopReason).toBe('final');
    expect(result.finalResult).toBe('42');
    expect(srv.requests[0].body.tools).toBeUndefined();
    expect(result.usage.cost).toBe(0); // a local server
  });
});

describe('deeply nested JSON from the model', () => {
  const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);

  it(
    'native arguments or a text decision nested 100,000 deep: a parse error the model sees, ' +
      'then the run goes on; the trace reads back',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'qitos-deep-'));
      try {
        const cases: Array<[Parser, OpenAIReply]> = [
          [
            kitNativeParser(),
            {
              toolCalls: [{ id: 'call_deep', name: 'add', arguments: `{"a": ${deep(100_000)}, "b": 1}` }],
              chunkSize: 1e6,
            },
          ],
          [
            jsonParser(),
            { text: `{"action": {"name": "add", "args": {"a": ${deep(100_000)}, "b": 1}}}`, chunkSize: 1e6 },
          ],
        ];
        for (const [parser, first] of cases) {
          const srv = await startFakeOpenAI([first, { text: parser.native ? 'done' : '{"final_answer": "done"}' }]);
          servers.push(srv);
          const model = createModel('openai:gpt-4o-mini', { baseURL: srv.url, apiKey: 'k', env: {} });
          const result = await new Engine({
            agent: new Calculator({ model, parser, tools: [add] }),
            trace: { dir },
          }).run('What is 2 + 3?');
          expect(result.stopReason, result.stopMessage).toBe('final');
          expect(JSON.stringify(srv.requests[1].body.messages)).toMatch(/nests? deeper than 512 levels/);
          const trace = await readTrace(result.traceDir!);
          expect(trace.steps[0].error).toMatchObject({
            kind: 'parse',
            message: expect.stringMatching(/nests? deeper than 512 levels/),
          });
        }
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
});

describe('Engine + AnthropicModel against a fake server', () => {
  it("runs the kit's native parser end to end: thinking goes back with its signature, a malformed tool input is fed back", async () => {
    const srv = await startFakeAnthropic([
      {
        thinking: { text: 'Add them with the tool.', signature: 'sig-1' },
        toolUses: [{ id: 'toolu_bad', name: 'add', input: '{"a": 2, "b": ' }],
      },
      {
        thinking: { text: 'Fix the input.', signature: 'sig-2' },
        toolUses: [{ id: 'toolu_ok', name: 'add', input: '{"a": 2, "b": 3}' }],
      },
      { text: 'The sum is 5.' },
    ]);
    servers.push(srv);
    const model = createModel('anthropic:claude-haiku-4-5', { baseURL: srv.url, apiKey: 'k', env: {} });
    const agent = new Calculator({ model, parser: kitNativeParser(), tools: [add] });
    const result = await new Engine({ agent, trace: false }).run('What is 2 + 3?');

    expect(result.stopReason).toBe('final');
    expect(result.finalResult).toBe('The sum is 5.');
    expect(srv.requests).toHaveLength(3);
    expect(srv.requests[0].body.tools.map((t: { name: string }) => t.name)).toEqual(['add']);
    // Turn 2: the first assistant turn comes back with its signed thinking block, and the malformed call gets an
    // error tool_result that names the tool.
    const second = srv.requests[1].body.messages;
    expect(second[1]).toMatchObject({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Add them with the tool.', signature: 'sig-1' },
        { type: 'tool_use', id: 'toolu_bad', name: 'add' },
      ],
    });
    expect(second[2].role).toBe('user');
    expect(second[2].content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_bad', is_error: true });
    expect(JSON.stringify(second[2])).toMatch(/arguments of your call to add are not a valid JSON object/);
    // Turn 3: the good call's result answers its id.
    const third = srv.requests[2].body.messages;
    expect(third.at(-1).content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_ok', content: '5' });
    expect(result.usage.modelCalls).toBe(3);
    expect(result.usage.cost).not.toBeNull();
  });
});

describe('an endpoint that cannot be reached', () => {
  /** A port on 127.0.0.1 that nothing listens on: bound once, then closed. */
  async function closedPort(): Promise<number> {
    const { createServer } = await import('node:net');
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const { port } = server.address() as { port: number };
    await new Promise<void>((r) => server.close(() => r()));
    return port;
  }

  it('ends the run after the model retries, naming the URL and the cause, instead of spending a step per failed call', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'qitos-unreachable-'));
    try {
      const baseURL = `http://127.0.0.1:${await closedPort()}/v1`;
      const model = createModel('openai:gpt-4o-mini', {
        apiKey: 'sk-test',
        baseURL,
        maxRetries: 1,
        retry: { baseDelayMs: 1 },
      });
      const agent = new Calculator({ model, parser: nativeParser, tools: [add] });
      const result = await new Engine({ agent, trace: { dir } }).run('add 1 and 2');
      expect(result.stopReason).toBe('unrecoverable_error');
      expect(result.state.step).toBe(1);
      const failure = result.failures.at(-1)!;
      expect(failure.kind).toBe('model_request');
      expect(failure.message).toMatch(
        /cannot reach http:\/\/127\.0\.0\.1:\d+\/v1: connection refused.*\(ECONNREFUSED\).*gave up after 2 attempts/,
      );
      // The manifest records where the requests went, so a later fork can tell when its endpoint moved.
      const trace = await readTrace(result.traceDir!);
      expect(trace.manifest.model?.endpoint).toBe(baseURL);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
