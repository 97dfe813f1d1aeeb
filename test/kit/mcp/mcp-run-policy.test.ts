import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Engine,
  type EventRecord,
  type Message,
  type ModelMessage,
  type PolicyContext,
  type State,
} from '../../../src/index.js';
import { ScriptedModel } from '../../../src/models/index.js';
import { jsonParser } from '../../../src/kit/parsers/index.js';
import { readTrace } from '../../../src/trace/index.js';
import { McpManager, McpRunPolicy, type McpSamplerFactory } from '../../../src/kit/mcp/index.js';
import { ModelPathAgent } from '../../helpers/kernel-fixtures.js';
import { ROOT, countingSampler, fixtureServer } from '../../helpers/mcp-fixtures.js';

let dir: string;
let manager: McpManager;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'qitos-mcp-run-'));
  manager = await McpManager.connect(
    {
      fx: fixtureServer({ sampling: { maxTokens: 20 }, elicitation: { action: 'accept', content: { name: 'qitos' } } }),
      plain: fixtureServer(),
    },
    { cwd: ROOT },
  );
}, 120_000);
afterAll(async () => {
  await manager?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A traced run whose model calls these tools in turn, then answers. */
async function runCalls(calls: Array<[string, Record<string, unknown>]>, sampler?: McpSamplerFactory<State>) {
  const model = new ScriptedModel([
    ...calls.map(([name, args]) => JSON.stringify({ thought: 'call', action: { name, args } })),
    '{"thought": "done", "final_answer": "ok"}',
  ]);
  const agent = new ModelPathAgent({ model, parser: jsonParser() });
  manager.attach(agent.tools);
  return new Engine({ agent, policies: [manager.runPolicy(sampler)], trace: { dir } }).run('call the tools');
}
const policyEvents = (events: EventRecord[]) =>
  events.filter((e) => e.type === 'policy').map((e) => e.data as { event: string; data: Record<string, unknown> });
const userContent = (req: { messages: ModelMessage[] }, i: number) =>
  (req.messages.filter((m) => m.role === 'user')[i] as Extract<ModelMessage, { role: 'user' }>).content;

describe('an Engine run with MCP servers (McpRunPolicy)', () => {
  it('resolves mcp:// references of the task into file parts, shows tool files to the model, and traces it', async () => {
    const model = new ScriptedModel([
      '{"thought": "look", "action": {"name": "fx_picture", "args": {}}}',
      '{"thought": "done", "final_answer": "seen"}',
    ]);
    const agent = new ModelPathAgent({ model, parser: jsonParser() });
    manager.attach(agent.tools);
    const engine = new Engine({ agent, policies: [manager.runPolicy()], trace: { dir } });
    const task =
      'Read mcp://fx/fixture://notes.txt, see mcp://fx/fixture://pixel.png, ' +
      'mcp://fx/fixture://data.gz and mcp://fx/fixture://missing.txt. Leave mcp://elsewhere/x ' +
      'alone.';
    const run = await engine.run(task);
    expect(run.stopReason).toBe('final');

    const first = userContent(model.requests[0], 0);
    expect(first[0]).toEqual({ type: 'text', text: task });
    expect(first.slice(1).map((p) => (p.type === 'file' ? `file ${p.mime}` : p.text))).toEqual([
      '[resource mcp://fx/fixture://notes.txt (notes, text/plain)]',
      'file text/plain',
      expect.stringMatching(/^\[resource mcp:\/\/fx\/fixture:\/\/pixel.png \((\w+, )?image\/png\)\]$/),
      'file image/png',
      '[mcp://fx/fixture://data.gz is application/gzip (20 bytes), which cannot be shown to the model]',
      expect.stringMatching(
        /^\[mcp:\/\/fx\/fixture:\/\/missing.txt could not be read: MCP server "fx" .*: resource "fixture:\/\/missing.txt" failed: .*not found/,
      ),
    ]);
    expect(Buffer.from((first[2] as { url: string }).url.split(',')[1], 'base64').toString()).toBe(
      'the notes say hello',
    );

    // the JSON parser's tool results come back as a user message: the text, then the tool's files (best effort)
    const observation = userContent(model.requests[1], 1);
    expect(observation[0]).toMatchObject({
      type: 'text',
      text: expect.stringContaining('Observation from fx_picture: a pixel'),
    });
    expect(observation.slice(1)).toEqual([
      { type: 'file', mime: 'image/png', url: expect.stringMatching(/^data:image\/png;base64,/), bestEffort: true },
      { type: 'file', mime: 'audio/wav', url: 'data:audio/wav;base64,UklGRg==', bestEffort: true },
      {
        type: 'file',
        mime: 'application/octet-stream',
        url: 'data:application/octet-stream;base64,AAEC',
        filename: 'data.bin',
        bestEffort: true,
      },
    ]);

    const trace = await readTrace(run.traceDir!);
    const events = policyEvents(trace.events);
    expect(events[0]).toMatchObject({
      event: 'mcp:servers',
      data: {
        servers: [
          { name: 'fx', state: 'connected', transport: 'stdio' },
          { name: 'plain', state: 'connected' },
        ],
      },
    });
    expect(events.filter((e) => e.event === 'mcp:resource').map((e) => e.data)).toEqual([
      { server: 'fx', uri: 'fixture://notes.txt', files: 1, notes: 0 },
      { server: 'fx', uri: 'fixture://pixel.png', files: 1, notes: 0 },
      { server: 'fx', uri: 'fixture://data.gz', files: 0, notes: 1 },
      { server: 'fx', uri: 'fixture://missing.txt', error: expect.stringContaining('not found') },
    ]);
    expect(trace.manifest.policies).toEqual(['mcp']);
    expect(trace.manifest.summary?.policyEvents).toMatchObject({ 'mcp:servers': 1, 'mcp:resource': 4 });
  });

  it('leaves a message alone that already holds resolved parts (a forked or replayed run)', async () => {
    const policy = new McpRunPolicy<State>(manager);
    const emitted: string[] = [];
    const message: Message = {
      role: 'user',
      info: { id: 'm1', role: 'user', time: { created: 0 } },
      parts: [
        { id: 'p1', type: 'text', text: 'see mcp://fx/fixture://notes.txt' },
        {
          id: 'p2',
          type: 'file',
          mime: 'text/plain',
          url: 'data:text/plain;base64,eA==',
          source: { type: 'mcp', server: 'fx', uri: 'fixture://notes.txt' },
        },
      ],
    };
    const ctx = {
      state: { messages: [message] },
      task: { resources: {} },
      signal: new AbortController().signal,
      emit: (e: string) => emitted.push(e),
    } as unknown as PolicyContext<State>;
    policy.start(ctx);
    expect(await policy.beforeModel([], ctx)).toBeUndefined();
    expect(emitted).toEqual(['mcp:servers']);
    manager.bindRun(undefined);
  });

  it('answers elicitation from the configured policy (accept here, decline by default) and traces it', async () => {
    const run = await runCalls([
      ['fx_ask', {}],
      ['plain_ask', {}],
    ]);
    const outputs = run.state.messages.flatMap((m) =>
      m.parts.flatMap((p) => (p.type === 'tool' && p.state.status === 'completed' ? [JSON.parse(p.state.output)] : [])),
    );
    expect(outputs).toEqual([{ action: 'accept', content: { name: 'qitos', count: 3 } }, { action: 'decline' }]);
    const events = policyEvents((await readTrace(run.traceDir!)).events).filter((e) => e.event === 'mcp:elicitation');
    expect(events.map((e) => e.data)).toEqual([
      { server: 'fx', mode: 'form', message: 'Who is asking?', fields: ['name', 'count'], action: 'accept' },
      { server: 'plain', mode: 'form', message: 'Who is asking?', fields: ['name', 'count'], action: 'decline' },
    ]);
  });

  it("answers sampling with the sampler the run supplies; its usage is the caller's to count, and the trace shows the call", async () => {
    const samplingModel = new ScriptedModel([{ text: 'Blue', usage: { input: 30, output: 2 }, cost: 0.001 }], {
      id: 'scripted:sampler',
    });
    const { sampler, spent } = countingSampler(samplingModel);
    const run = await runCalls(
      [
        ['fx_sample', { question: 'Sky colour?', maxTokens: 500 }],
        ['plain_sample', { question: 'Sky colour?' }],
      ],
      () => sampler,
    );
    const results = run.state.messages.flatMap((m) => m.parts.flatMap((p) => (p.type === 'tool' ? [p.state] : [])));
    expect(results[0]).toMatchObject({ status: 'completed' });
    expect(JSON.parse((results[0] as { output: string }).output)).toEqual({
      role: 'assistant',
      content: { type: 'text', text: 'Blue' },
      model: 'scripted:sampler',
      stopReason: 'endTurn',
    });
    // the server that did not ask for sampling in its config was never offered it
    expect(results[1]).toMatchObject({ status: 'error', error: 'MCP error -32601: Method not found' });
    expect(samplingModel.requests[0]).toMatchObject({
      messages: [
        { role: 'system', content: 'Answer in one word.' },
        { role: 'user', content: [{ type: 'text', text: 'Sky colour?' }] },
      ],
      maxOutputTokens: 20,
      temperature: 0,
    });
    expect(spent()).toMatchObject({ input: 30, output: 2 });
    const events = policyEvents((await readTrace(run.traceDir!)).events).filter((e) => e.event === 'mcp:sampling');
    expect(events.map((e) => e.data)).toEqual([
      {
        server: 'fx',
        messages: 1,
        maxTokens: 20,
        tokens: { input: 30, output: 2, reasoning: 0, cache: { read: 0, write: 0 } },
        cost: 0.001,
      },
    ]);
  });

  it(
    "by default the run's own model answers sampling, through its middleware: counted in the " +
      "run's usage and traced as a model call",
    async () => {
      const model = new ScriptedModel([
        '{"thought": "ask", "action": {"name": "fx_sample", "args": {"question": "Sky colour?"}}}',
        { text: 'Blue', usage: { input: 30, output: 2 }, cost: 0.001 },
        '{"thought": "done", "final_answer": "ok"}',
      ]);
      const agent = new ModelPathAgent({ model, parser: jsonParser() });
      manager.attach(agent.tools);
      const seen: string[] = [];
      const run = await new Engine({
        agent,
        policies: [manager.runPolicy()],
        middleware: [(call, next) => (seen.push(call.purpose), next(call))],
        trace: { dir },
      }).run('ask the server');
      expect(run.stopReason).toBe('final');
      const tool = run.state.messages.flatMap((m) => m.parts.flatMap((p) => (p.type === 'tool' ? [p.state] : [])))[0];
      expect(JSON.parse((tool as { output: string }).output)).toMatchObject({
        content: { type: 'text', text: 'Blue' },
        model: model.id,
      });
      expect(seen).toEqual(['decide', 'mcp:sampling', 'decide']);
      expect(run.usage.modelCalls).toBe(3);
      expect(run.usage.tokens.input).toBeGreaterThanOrEqual(30);
      expect(run.usage.cost).toBeGreaterThanOrEqual(0.001);
      const calls = (await readTrace(run.traceDir!)).events.filter((e) => e.type === 'model_call');
      expect(calls.map((e) => (e.data as { purpose?: string }).purpose)).toContain('mcp:sampling');
    },
  );

  it('a run policy given to two runs one after another resolves references in each (per-run state)', async () => {
    const policy = manager.runPolicy<State>();
    for (const answer of ['one', 'two']) {
      const model = new ScriptedModel([`{"thought": "done", "final_answer": "${answer}"}`]);
      const agent = new ModelPathAgent({ model, parser: jsonParser() });
      const run = await new Engine({ agent, policies: [policy], trace: false }).run(
        'Read mcp://fx/fixture://notes.txt',
      );
      expect(run.finalResult).toBe(answer);
      expect(
        userContent(model.requests[0], 0).some(
          (p) => p.type === 'file' || (p.type === 'text' && p.text.includes('notes')),
        ),
      ).toBe(true);
      expect(userContent(model.requests[0], 0).length).toBeGreaterThan(1);
    }
  });
});
