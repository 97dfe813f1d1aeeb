import { join } from 'node:path';
import { afterEach } from 'vitest';
import type { ModelRequest, State } from '../../src/core/index.js';
import { Engine } from '../../src/engine/engine.js';
import { ReActAgent } from '../../src/kit/agents/index.js';
import { ScriptedModel, type ScriptReply } from '../../src/models/index.js';
import { startServer, type RunningServer, type StartServerOptions } from '../../src/server/index.js';
import { addTool, tempDir } from '../helpers/kernel-fixtures.js';

/** The text of a model message (string content, or its text parts joined). */
export function textOf(m: ModelRequest['messages'][number] | undefined): string {
  if (!m) return '';
  const c = (m as { content: unknown }).content;
  if (typeof c === 'string') return c;
  return Array.isArray(c) ? c.map((p: { text?: string }) => p.text ?? '').join('') : '';
}

/** A ReActAgent engine whose scripted model answers each request with `reply(request)`, tracing under `traceDir`. */
export function scriptedEngine(
  traceDir: string,
  reply: (req: ModelRequest) => Exclude<ScriptReply, (...a: never[]) => unknown>,
  tools = false,
  model = new ScriptedModel([reply], { loop: true, chunkSize: 4 }),
): Engine<State> {
  const agent = new ReActAgent({ model, tools: tools ? [addTool] : [] });
  return new Engine<State>({ agent, trace: { dir: traceDir } });
}

/** Echoes the last user message as the final answer. */
export const echo = (req: ModelRequest) => ({
  text: `Thought: easy\nFinal Answer: echo: ${textOf(req.messages.at(-1))}`,
  usage: { input: 12, output: 7 },
});

/** Calls add(2, 3), then answers with the observation. */
export const adder = (req: ModelRequest) => {
  const last = textOf(req.messages.at(-1));
  return /Observation/.test(last)
    ? { text: `Thought: got it\nFinal Answer: ${/(\d+)\s*$/.exec(last)?.[1] ?? '?'}` }
    : { text: 'Thought: add them\nAction: add(a=2, b=3)' };
};

/** A server on a free loopback port with an echo agent ("echo"), a tool agent ("adder") and a slow one ("slow"). */
export async function testServer(
  options: Partial<StartServerOptions> & { slowMs?: number } = {},
): Promise<RunningServer & { traceDir: string }> {
  const traceDir = join(await tempDir('qitos-serve-'), 'traces');
  const slow = (req: ModelRequest) => ({
    text: `Thought: ${'thinking '.repeat(40)}\nFinal Answer: slow: ${textOf(req.messages.at(-1))}`,
    delayMs: options.slowMs ?? 400,
  });
  const server = await startServer({
    agents: [
      { id: 'echo', engine: scriptedEngine(traceDir, echo) },
      { id: 'adder', engine: scriptedEngine(traceDir, adder, true) },
      { id: 'slow', engine: scriptedEngine(traceDir, slow) },
    ],
    traceDir,
    port: 0,
    ...options,
  });
  return Object.assign(server, { traceDir });
}

/** A test server as `testServer` returns it. */
export type TestServer = Awaited<ReturnType<typeof testServer>>;

/** A `testServer` factory for a test file: every server it starts is closed (runs interrupted) after each test. */
export function serversClosedAfterEach(): (o?: Parameters<typeof testServer>[0]) => Promise<TestServer> {
  const servers: TestServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close({ graceMs: 0 })));
  });
  return async (o = {}) => {
    const s = await testServer(o);
    servers.push(s);
    return s;
  };
}
