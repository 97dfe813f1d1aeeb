import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import * as incubating from '@opentelemetry/semantic-conventions/incubating';
import { z } from 'zod';
import { Engine, Redactor, defineTool } from '../../../src/index.js';
import { ScriptedModel } from '../../../src/models/index.js';
import { jsonParser } from '../../../src/kit/parsers/index.js';
import { taskTool } from '../../../src/kit/tools/index.js';
import { WorkflowDefinition, runWorkflow } from '../../../src/kit/workflow/index.js';
import { exportTraces, otlpTap, type OtlpTapOptions } from '../../../src/trace/index.js';
import { GEN_AI, GEN_AI_OPERATION } from '../../../src/trace/otel/gen-ai-attributes.js';
import { ModelPathAgent, addTool, tempDir } from '../../helpers/kernel-fixtures.js';
import {
  startOtlpReceiver,
  type OtlpReceiver,
  type OtlpValue,
  type ReceivedSpan,
} from '../../helpers/otlp-receiver.js';

const SECRET = 'sk-live-0123456789abcdef';
const call = (name: string, args: Record<string, unknown>) => JSON.stringify({ action: { name, args } });
const final = (answer: string) => JSON.stringify({ final_answer: answer });

const receivers: OtlpReceiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});
async function receiver(): Promise<OtlpReceiver> {
  const r = await startOtlpReceiver();
  receivers.push(r);
  return r;
}

/** A tool that gets a secret in its arguments (the model was told it) and echoes them. */
const lookupTool = defineTool({
  id: 'lookup',
  description: 'Look a key up',
  parameters: z.object({ key: z.string() }),
  execute: ({ key }) => `found ${key}`,
});

async function tracedRun(dir: string, tapOptions: OtlpTapOptions, script?: string[]) {
  const tap = await otlpTap({ scheduledDelayMs: 50, ...tapOptions });
  const model = new ScriptedModel(
    script ?? [call('add', { a: 2, b: 3 }), call('lookup', { key: SECRET }), final('5 and found')],
    { id: 'openai:gpt-test' },
  );
  const engine = new Engine({
    agent: new ModelPathAgent({
      model,
      parser: jsonParser(),
      tools: [addTool, lookupTool],
      modelParams: { temperature: 0.5 },
    }),
    trace: { dir, tap },
    redactor: new Redactor([SECRET]),
  });
  const result = await engine.run({ id: 'task-1', objective: 'add and look up' });
  await tap.shutdown();
  return result;
}

const str = (v: OtlpValue | undefined) => (v && 'stringValue' in v ? v.stringValue : undefined);
const int = (v: OtlpValue | undefined) => (v && 'intValue' in v ? Number(v.intValue) : undefined);
const byName = (spans: ReceivedSpan[], name: string) => spans.filter((s) => s.name === name);
const ms = (ns: string) => Number(BigInt(ns) / 1_000_000n);

describe('OpenTelemetry export (otlpTap) to a local OTLP receiver', () => {
  it(
    'a run is an invoke_agent span, its model calls chat spans and its tool calls ' +
      'execute_tool spans under it, with typed GenAI attributes and recorded times',
    async () => {
      const dir = await tempDir();
      const r = await receiver();
      const result = await tracedRun(dir, { endpoint: r.url });
      expect(result.stopReason).toBe('final');
      expect(r.requests[0]!.contentType).toBe('application/x-protobuf');
      const spans = r.spans;
      expect(spans.map((s) => s.name).sort()).toEqual([
        'chat gpt-test',
        'chat gpt-test',
        'chat gpt-test',
        'execute_tool add',
        'execute_tool lookup',
        'invoke_agent ModelPathAgent',
      ]);
      const [run] = byName(spans, 'invoke_agent ModelPathAgent');
      expect(run!.parentSpanId).toBe('');
      expect(run!.kind).toBe(1); // INTERNAL
      expect(str(run!.resource['service.name'])).toBe('qitos');
      expect(run!.attributes).toMatchObject({
        [GEN_AI.operationName]: { stringValue: 'invoke_agent' },
        [GEN_AI.providerName]: { stringValue: 'openai' },
        [GEN_AI.agentName]: { stringValue: 'ModelPathAgent' },
        [GEN_AI.requestModel]: { stringValue: 'gpt-test' },
        [GEN_AI.conversationId]: { stringValue: result.runId },
        'qitos.stop_reason': { stringValue: 'final' },
        'qitos.steps': { intValue: '3' },
        'qitos.task.id': { stringValue: 'task-1' },
      });
      expect(run!.status.code ?? 0).toBe(0);
      for (const s of spans.filter((x) => x !== run)) {
        expect(s.traceId).toBe(run!.traceId);
        expect(s.parentSpanId).toBe(run!.spanId);
        expect(BigInt(s.startTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(run!.startTimeUnixNano));
        expect(BigInt(s.endTimeUnixNano)).toBeLessThanOrEqual(BigInt(run!.endTimeUnixNano));
        expect(BigInt(s.endTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(s.startTimeUnixNano));
      }
      const chat = byName(spans, 'chat gpt-test')[0]!;
      expect(chat.kind).toBe(3); // CLIENT
      expect(chat.attributes[GEN_AI.operationName]).toEqual({ stringValue: 'chat' });
      expect(chat.attributes[GEN_AI.requestTemperature]).toEqual({ doubleValue: 0.5 });
      expect(int(chat.attributes[GEN_AI.usageOutputTokens])).toBeGreaterThan(0);
      expect(chat.attributes[GEN_AI.usageInputTokens]).toHaveProperty('intValue');
      expect(chat.attributes[GEN_AI.responseFinishReasons]).toEqual({
        arrayValue: { values: [{ stringValue: 'stop' }] },
      });
      const [add] = byName(spans, 'execute_tool add');
      expect(add!.attributes).toMatchObject({
        [GEN_AI.operationName]: { stringValue: 'execute_tool' },
        [GEN_AI.toolName]: { stringValue: 'add' },
        [GEN_AI.toolType]: { stringValue: 'function' },
        [GEN_AI.toolDescription]: { stringValue: 'Add two numbers' },
        'qitos.step': { intValue: '1' },
      });
      // the tool span's times are the tool state's recorded times
      const { readTrace } = await import('../../../src/trace/index.js');
      const trace = await readTrace(result.traceDir!);
      const recorded = trace.steps[0]!.results[0]!;
      expect(str(add!.attributes[GEN_AI.toolCallId])).toBe(recorded.actionId);
      const time = recorded.state.time as { start: number; end: number };
      expect(ms(add!.startTimeUnixNano)).toBe(time.start);
      expect(ms(add!.endTimeUnixNano)).toBe(time.end);
      expect(ms(run!.startTimeUnixNano)).toBe(Date.parse(trace.manifest.createdAt));
      // content is opt-in: off by default, no prompt, reply, arguments or results on any span
      for (const s of spans)
        for (const key of [
          GEN_AI.inputMessages,
          GEN_AI.outputMessages,
          GEN_AI.systemInstructions,
          GEN_AI.toolCallArguments,
          GEN_AI.toolCallResult,
        ])
          expect(s.attributes[key], `${s.name} ${key}`).toBeUndefined();
    },
  );

  it('with content on, prompts, replies, tool arguments and results are on the spans, and a secret in a tool argument is not', async () => {
    const dir = await tempDir();
    const r = await receiver();
    await tracedRun(dir, { endpoint: r.url, content: true });
    const [lookup] = byName(r.spans, 'execute_tool lookup');
    const args = JSON.parse(str(lookup!.attributes[GEN_AI.toolCallArguments])!);
    expect(args.key).not.toContain(SECRET);
    expect(args.key).toBe('[redacted]');
    const [run] = byName(r.spans, 'invoke_agent ModelPathAgent');
    expect(JSON.parse(str(run!.attributes[GEN_AI.inputMessages])!)).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'add and look up' }] },
    ]);
    expect(str(run!.attributes[GEN_AI.systemInstructions])).toContain('You are a test agent.');
    const output = byName(r.spans, 'chat gpt-test').map((s) => JSON.parse(str(s.attributes[GEN_AI.outputMessages])!));
    expect(output[0]).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: call('add', { a: 2, b: 3 }) }], finish_reason: 'stop' },
    ]);
    expect(str(byName(r.spans, 'execute_tool add')[0]!.attributes[GEN_AI.toolCallResult])).toBe('5');
    for (const body of r.bodies) expect(body).not.toContain(SECRET);
  });

  it('a sub-run is an invoke_agent span under its parent run span, in the same trace', async () => {
    const dir = await tempDir();
    const r = await receiver();
    const tap = await otlpTap({ endpoint: r.url, scheduledDelayMs: 50 });
    const task = taskTool({
      createAgent: () => ({
        agent: new ModelPathAgent({
          name: 'Child',
          model: new ScriptedModel([call('add', { a: 1, b: 1 }), final('2')], { id: 'anthropic:claude-test' }),
          parser: jsonParser(),
          tools: [addTool],
        }),
      }),
    });
    const parent = new ModelPathAgent({
      model: new ScriptedModel([call('task', { description: 'add', prompt: 'add 1 and 1' }), final('done')]),
      parser: jsonParser(),
      tools: [task],
    });
    const result = await new Engine({ agent: parent, trace: { dir, tap } }).run('delegate');
    await tap.shutdown();
    expect(result.stopReason).toBe('final');
    const [top] = byName(r.spans, 'invoke_agent ModelPathAgent');
    const [child] = byName(r.spans, 'invoke_agent Child');
    expect(child!.parentSpanId).toBe(top!.spanId);
    expect(child!.traceId).toBe(top!.traceId);
    expect(str(child!.attributes['qitos.parent.kind'])).toBe('subtask');
    expect(str(child!.attributes[GEN_AI.providerName])).toBe('anthropic');
    const childChats = r.spans.filter((s) => s.name === 'chat claude-test');
    expect(childChats).toHaveLength(2);
    for (const s of childChats) expect(s.parentSpanId).toBe(child!.spanId);
  });

  it("a workflow's fork branches are invoke_agent spans under the workflow run's span", async () => {
    const dir = await tempDir();
    const r = await receiver();
    const tap = await otlpTap({ endpoint: r.url, scheduledDelayMs: 50 });
    const weather = defineTool({
      id: 'weather',
      description: 'Weather.',
      parameters: z.object({ city: z.string() }),
      execute: ({ city }) => `sunny in ${city}`,
    });
    const flow = WorkflowDefinition.create({
      name: 'fan',
      nodes: [
        { kind: 'start', id: 'start' },
        { kind: 'fork', id: 'fan' },
        { kind: 'tool', id: 'a', toolName: 'weather', parameters: { city: 'Oslo' }, output: 'x' },
        { kind: 'tool', id: 'b', toolName: 'weather', parameters: { city: 'Rome' }, output: 'y' },
        { kind: 'join', id: 'j', fork: 'fan', output: 'both' },
        { kind: 'end', id: 'done', result: '{{both}}' },
      ],
      edges: [
        { from: 'start', to: 'fan' },
        { from: 'fan', to: 'a' },
        { from: 'fan', to: 'b' },
        { from: 'a', to: 'j' },
        { from: 'b', to: 'j' },
        { from: 'j', to: 'done' },
      ],
    });
    const result = await runWorkflow(flow, { tools: [weather], trace: { dir, tap } });
    await tap.shutdown();
    expect(result.status).toBe('completed');
    const runs = r.spans.filter((s) => s.name.startsWith('invoke_agent'));
    const top = runs.filter((s) => s.parentSpanId === '');
    expect(top).toHaveLength(1);
    const branches = runs.filter((s) => s.parentSpanId === top[0]!.spanId);
    expect(branches).toHaveLength(2);
    for (const b of branches) {
      expect(b.traceId).toBe(top[0]!.traceId);
      expect(str(b.attributes['qitos.parent.kind'])).toBe('subtask');
    }
  });

  it('a failed run ends its span with status ERROR and the stop reason as error.type', async () => {
    const dir = await tempDir();
    const r = await receiver();
    const tap = await otlpTap({ endpoint: r.url, scheduledDelayMs: 50 });
    const model = new ScriptedModel([{ error: new Error('boom') }], { id: 'openai:gpt-test' });
    const result = await new Engine({
      agent: new ModelPathAgent({ model, parser: jsonParser() }),
      trace: { dir, tap },
      maxRecoveries: 0,
    }).run('fail');
    await tap.shutdown();
    expect(result.stopReason).toBe('unrecoverable_error');
    const [run] = byName(r.spans, 'invoke_agent ModelPathAgent');
    expect(run!.status.code).toBe(2); // ERROR
    expect(str(run!.attributes[GEN_AI.errorType])).toBe('unrecoverable_error');
    expect(run!.events.map((e) => e.name)).toContain('qitos.recover');
  });

  it('an unreachable collector does not fail the run, and the failure is reported once', async () => {
    const dir = await tempDir();
    const port = await closedPort();
    const lines: string[] = [];
    const tap = await otlpTap({
      endpoint: `http://127.0.0.1:${port}`,
      scheduledDelayMs: 10,
      timeoutMs: 1000,
      report: (l) => lines.push(l),
    });
    for (let i = 0; i < 3; i++) {
      const model = new ScriptedModel([call('add', { a: 1, b: i }), final('ok')]);
      const result = await new Engine({
        agent: new ModelPathAgent({ model, parser: jsonParser(), tools: [addTool] }),
        trace: { dir, tap },
      }).run('go');
      expect(result.stopReason).toBe('final');
      await tap.flush();
    }
    await tap.shutdown();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`OpenTelemetry export to http://127\\.0\\.0\\.1:${port}/v1/traces failed`));
  });

  it('an export worker that dies (out of its memory limit) fails no run: runs complete, it is reported once', async () => {
    const dir = await tempDir();
    const r = await receiver();
    const lines: string[] = [];
    const tap = await otlpTap({
      endpoint: r.url,
      scheduledDelayMs: 10,
      workerLimits: { maxOldGenerationSizeMb: 4 }, // too little for the SDK: it dies as it loads it
      report: (l) => lines.push(l),
    });
    for (let i = 0; i < 3; i++) {
      const model = new ScriptedModel([call('add', { a: 1, b: i }), final('ok')]);
      const result = await new Engine({
        agent: new ModelPathAgent({ model, parser: jsonParser(), tools: [addTool] }),
        trace: { dir, tap },
      }).run('go');
      expect(result.stopReason).toBe('final');
      expect(result.failures).toEqual([]);
      await tap.flush();
    }
    await tap.shutdown();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /OpenTelemetry export to http:\/\/127\.0\.0\.1:\d+\/v1\/traces stopped \(the export worker/,
    );
    expect(r.spans).toEqual([]);
    await expect(otlpTap({ endpoint: r.url, workerLimits: { maxOldGenerationSizeMb: 1 } })).rejects.toThrow(
      'workerLimits.maxOldGenerationSizeMb must be at least 4 (got 1)',
    );
  });

  it(
    'the export worker does not keep a process alive: ' +
      'a process that never flushes or shuts its tap down exits when its run is done',
    async () => {
      const dir = await tempDir();
      const r = await receiver();
      const script = join(dir, 'no-shutdown.mts');
      const src = new URL('../../../src/', import.meta.url).href;
      await writeFile(
        script,
        [
          `import { AgentModule, Engine, baseState } from ${JSON.stringify(src + 'index.ts')};`,
          `import { ScriptedModel } from ${JSON.stringify(src + 'models/index.ts')};`,
          `import { jsonParser } from ${JSON.stringify(src + 'kit/parsers/index.ts')};`,
          `import { otlpTap } from ${JSON.stringify(src + 'trace/index.ts')};`,
          `class Agent extends AgentModule { initState(task) { return baseState(task, 3); } }`,
          `const tap = await otlpTap({ endpoint: ${JSON.stringify(r.url)}, scheduledDelayMs: 10 });`,
          `const model = new ScriptedModel([${JSON.stringify(final('done'))}]);`,
          `const agent = new Agent({ model, parser: jsonParser() });`,
          `const result = await new Engine({ agent, trace: { dir: ${JSON.stringify(dir)}, tap } }).run('go');`,
          `console.log(result.stopReason, typeof tap.shutdown);`,
        ].join('\n'),
      );
      const out = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = execFile(
          process.execPath,
          ['--import', import.meta.resolve('tsx'), script],
          { timeout: 30_000, cwd: dir },
          (err, stdout, stderr) => resolve({ code: err ? (child.exitCode ?? -1) : 0, stdout, stderr }),
        );
      });
      expect(out.stderr).toBe('');
      expect(out.code).toBe(0); // not killed by the 30 s timeout: nothing held the process after its run
      expect(out.stdout.trim()).toBe('final function');
    },
  );

  it(
    'the hand-over to the export worker is a bounded queue: past it records are dropped and that is told once; ' +
      'a queue that holds the run sends every span',
    async () => {
      const dir = await tempDir();
      const model = new ScriptedModel([call('add', { a: 1, b: 2 })], { loop: true });
      const result = await new Engine({
        agent: new ModelPathAgent({ model, parser: jsonParser(), tools: [addTool], config: { maxSteps: 200 } }),
        trace: { dir },
      }).run('add forever');
      expect(result.steps).toBe(200);
      const small = await receiver();
      const lines: string[] = [];
      const bounded = await otlpTap({ endpoint: small.url, maxQueueSize: 20, report: (l) => lines.push(l) });
      await exportTraces([result.traceDir!], bounded); // fed in one go, far faster than the worker makes spans
      await bounded.shutdown();
      expect(lines).toEqual(['qitos: OpenTelemetry export queue is full (20 records); new records are dropped']);
      expect(small.spans.length).toBeLessThan(401);
      expect(byName(small.spans, 'invoke_agent ModelPathAgent')).toHaveLength(1); // its first and last record are kept
      const big = await receiver();
      const whole = await otlpTap({ endpoint: big.url, maxQueueSize: 10_000, report: (l) => lines.push(l) });
      await exportTraces([result.traceDir!], whole);
      await whole.shutdown();
      expect(lines).toHaveLength(1);
      expect(big.spans).toHaveLength(401); // the run, and a chat and an execute_tool span per step
    },
  );

  it('a long live run, read by the export worker from its trace files as they grow, sends every span', async () => {
    const dir = await tempDir();
    const r = await receiver();
    const tap = await otlpTap({ endpoint: r.url, scheduledDelayMs: 10 });
    const model = new ScriptedModel([call('add', { a: 1, b: 2 })], { loop: true });
    const result = await new Engine({
      agent: new ModelPathAgent({ model, parser: jsonParser(), tools: [addTool], config: { maxSteps: 200 } }),
      trace: { dir, tap },
    }).run('add forever');
    await tap.shutdown();
    expect(result.steps).toBe(200);
    expect(r.spans).toHaveLength(401); // the run, and a chat and an execute_tool span per step
    expect(byName(r.spans, 'execute_tool add')).toHaveLength(200);
  });

  it('qitos trace export: a recorded trace becomes the same spans, with its recorded times (OTLP/JSON here)', async () => {
    const dir = await tempDir();
    const live = await receiver();
    const result = await tracedRun(dir, { endpoint: live.url });
    const later = await receiver();
    const tap = await otlpTap({ endpoint: later.url, protocol: 'http/json', scheduledDelayMs: 50 });
    expect(await exportTraces([result.traceDir!], tap)).toBe(1);
    await tap.shutdown();
    expect(later.requests[0]!.contentType).toBe('application/json');
    const shape = (spans: ReceivedSpan[]) =>
      spans
        .map((s) => ({
          name: s.name,
          start: s.startTimeUnixNano,
          end: s.endTimeUnixNano,
          attributes: s.attributes,
          root: s.parentSpanId === '',
        }))
        .sort((a, b) => (a.start + a.name < b.start + b.name ? -1 : 1));
    expect(shape(later.spans)).toEqual(shape(live.spans));
  });

  it('names the GenAI attributes as @opentelemetry/semantic-conventions/incubating does', () => {
    const names = incubating as unknown as Record<string, string>;
    const constant = (attr: string) => `ATTR_${attr.replace(/\./g, '_').toUpperCase()}`;
    for (const attr of Object.values(GEN_AI).filter((a) => a.startsWith('gen_ai.')))
      expect(names[constant(attr)], attr).toBe(attr);
    expect(names.GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT).toBe(GEN_AI_OPERATION.invokeAgent);
    expect(names.GEN_AI_OPERATION_NAME_VALUE_CHAT).toBe(GEN_AI_OPERATION.chat);
    expect(names.GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL).toBe(GEN_AI_OPERATION.executeTool);
  });
});

/** A port on 127.0.0.1 nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
