import { readdir, readFile, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ProgressNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../src/models/index.js';
import { startMcpHttpServer, type McpHttpServer } from '../../src/server/mcp-http-server.js';
import { runToolName } from '../../src/server/agent-mcp-server.js';
import { CALC_AGENT, CALC_SCRIPT, tempDir } from '../helpers/cli-harness.js';
import { adder, scriptedEngine } from '../server/serve-fixtures.js';

const BIN = resolve(__dirname, '../../bin/qitos.js');

let dir: string;
let cleanup: () => Promise<void>;
const closers: Array<() => Promise<unknown>> = [];
beforeEach(async () => ({ dir, cleanup } = await tempDir('qitos-mcp-serve-')));
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
  await cleanup();
});

type Progress = { progress: number; message?: string };

/**
 * Records the progress notifications a client gets. The SDK client drops one that arrives in the same read as
 * the result (its progress handler is removed before the notification's handler runs), so the test reads them
 * through a notification handler of its own; `onprogress` is still passed, to make the client send a progress token.
 */
function recordProgress(client: Client): Progress[] {
  const seen: Progress[] = [];
  client.setNotificationHandler(ProgressNotificationSchema, (n) => void seen.push(n.params));
  return seen;
}

describe('qitos mcp serve', () => {
  it('over stdio: one run_<agent> tool, progress per step, the answer and the trace id out (the SDK client drives it)', async () => {
    const client = new Client({ name: 'test-host', version: '1' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', 'serve', '--agent', CALC_AGENT, '--model', `scripted:${CALC_SCRIPT}`],
      cwd: dir,
      env: { PATH: process.env.PATH ?? '' },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (d: Buffer) => (stderr += d));
    await client.connect(transport);
    closers.push(() => client.close());
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['run_calc-agent']);
    expect(tools[0].inputSchema.required).toEqual(['task']);
    const progress = recordProgress(client);
    const result = await client.callTool(
      { name: 'run_calc-agent', arguments: { task: 'What is 17 * 23?' } },
      undefined,
      { onprogress: () => {} },
    );
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: 'text', text: '391' }]);
    const out = result.structuredContent as { answer: string; runId: string; stopReason: string; steps: number };
    expect(out).toMatchObject({ answer: '391', stopReason: 'final', steps: 2 });
    expect(progress.map((p) => [p.progress, p.message])).toEqual([
      [1, 'step 1: called calc'],
      [2, 'step 2: decided'],
    ]);
    const manifest = JSON.parse(await readFile(join(dir, 'traces', out.runId, 'manifest.json'), 'utf8'));
    expect(manifest.status).toBe('completed');
    expect(stderr).toMatch(/qitos mcp serve: stdio {2}tools: run_calc-agent/);
  }, 60_000);

  it('over streamable HTTP: the same tool, progress notifications, isError for a run that fails, and the token rule', async () => {
    const traceDir = join(dir, 'traces');
    const broken = scriptedEngine(traceDir, () => ({ text: 'x' }), false, new ScriptedModel([]));
    const server = await startMcpHttpServer({
      agents: [
        { id: 'adder', engine: scriptedEngine(traceDir, adder, true) },
        { id: 'broken', engine: broken },
      ],
      token: 'tok',
      port: 0,
    });
    closers.push(server.close);
    const connect = async (token: string) => {
      const client = new Client({ name: 'test-host', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      closers.push(() => client.close());
      return client;
    };
    await expect(connect('wrong')).rejects.toThrow(/401|invalid_api_key|Incorrect API key/);
    const client = await connect('tok');
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['run_adder', 'run_broken']);
    const progress = recordProgress(client);
    const ok = await client.callTool({ name: 'run_adder', arguments: { task: 'add 2 and 3' } }, undefined, {
      onprogress: () => {},
    });
    expect(ok.structuredContent).toMatchObject({ answer: '5', stopReason: 'final', steps: 2 });
    expect(progress.map((p) => p.message)).toEqual(['step 1: called add', 'step 2: decided']);
    const bad = await client.callTool({ name: 'run_broken', arguments: { task: 'x' } });
    expect(bad.isError).toBe(true);
    expect((bad.content as Array<{ text: string }>)[0].text).toMatch(
      /^the run ended unrecoverable_error: .*script exhausted.* \(trace \S+\)$/,
    );
    const invalid = await client
      .callTool({ name: 'run_adder', arguments: { task: '' } })
      .catch((e: Error) => ({ isError: true, content: [{ text: e.message }] }));
    expect(invalid.isError).toBe(true);
  }, 60_000);

  it("names tools run_<id> within MCP's allowed characters", () => {
    expect(runToolName('react@openai:gpt-4o-mini')).toBe('run_react_openai_gpt-4o-mini');
    expect(runToolName('x'.repeat(100))).toHaveLength(64);
  });
});

/** Waits until `check` holds (polling), or fails after `ms`. */
async function until(check: () => Promise<boolean> | boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A model that takes 30 s to answer: a call to it is still running when the test cancels it. */
const SLOW = { text: 'Thought: this takes a while\nFinal Answer: too late', delayMs: 30_000 };

async function httpServer(
  traceDir: string,
  extra: Partial<Parameters<typeof startMcpHttpServer>[0]> = {},
): Promise<McpHttpServer> {
  const server = await startMcpHttpServer({
    agents: [
      { id: 'react', engine: scriptedEngine(traceDir, () => SLOW) },
      { id: 'adder', engine: scriptedEngine(traceDir, adder, true) },
    ],
    port: 0,
    ...extra,
  });
  closers.push(server.close);
  return server;
}

async function httpClient(server: McpHttpServer): Promise<Client> {
  const client = new Client({ name: 'test-host', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
  closers.push(() => client.close());
  return client;
}

describe('qitos mcp serve: cancellation and limits', () => {
  it.each(['stdio', 'streamable HTTP'])(
    'over %s, a cancelled tools/call interrupts its run: the trace ends interrupted',
    async (transport) => {
      const traceDir = join(dir, 'traces');
      let client: Client;
      if (transport === 'stdio') {
        await writeFile(join(dir, 'slow.json'), JSON.stringify([SLOW]));
        client = new Client({ name: 'test-host', version: '1' });
        await client.connect(
          new StdioClientTransport({
            command: process.execPath,
            args: [BIN, 'mcp', 'serve', '--agent', 'react', '--model', 'scripted:slow.json'],
            cwd: dir,
            env: { PATH: process.env.PATH ?? '' },
            stderr: 'pipe',
          }),
        );
        closers.push(() => client.close());
      } else client = await httpClient(await httpServer(traceDir));
      const cancel = new AbortController();
      const call = client
        .callTool({ name: 'run_react', arguments: { task: 'think slowly' } }, undefined, { signal: cancel.signal })
        .catch((e: unknown) => e);
      await until(async () => (await readdir(traceDir).catch(() => [])).length === 1);
      const [runId] = await readdir(traceDir);
      const manifest = async () => JSON.parse(await readFile(join(traceDir, runId, 'manifest.json'), 'utf8'));
      cancel.abort();
      expect(await call).toBeInstanceOf(Error);
      // The run's folder is made before its first manifest is renamed into it: a missing manifest is "not yet".
      await until(async () => ((await manifest().catch(() => undefined))?.status ?? 'running') !== 'running');
      expect(await manifest()).toMatchObject({ status: 'interrupted', summary: { stopReason: 'interrupted' } });
    },
    60_000,
  );

  it('over HTTP, runs past maxRuns (over every session) are a tool error and start nothing; a slot frees when a run ends', async () => {
    const traceDir = join(dir, 'traces');
    const server = await httpServer(traceDir, { maxRuns: 1 });
    const [a, b] = [await httpClient(server), await httpClient(server)];
    expect(server.sessions).toBe(2);
    const cancel = new AbortController();
    const slow = a
      .callTool({ name: 'run_react', arguments: { task: 'x' } }, undefined, { signal: cancel.signal })
      .catch((e: unknown) => e);
    await until(() => server.activeRuns === 1);
    const refused = await b.callTool({ name: 'run_adder', arguments: { task: 'add 2 and 3' } });
    expect(refused).toMatchObject({
      isError: true,
      content: [
        { type: 'text', text: expect.stringMatching(/running 1 runs, its limit \(--max-runs\); retry shortly/) },
      ],
    });
    expect(await readdir(traceDir)).toHaveLength(1);
    cancel.abort();
    await slow;
    await until(() => server.activeRuns === 0);
    expect(
      (await b.callTool({ name: 'run_adder', arguments: { task: 'add 2 and 3' } })).structuredContent,
    ).toMatchObject({ answer: '5' });
  }, 60_000);

  it('over HTTP, sessions are capped (503 past maxSessions) and an idle one is closed; its id then gets 404', async () => {
    const server = await httpServer(join(dir, 'traces'), { maxSessions: 1, sessionIdleMs: 300 });
    const first = await httpClient(server);
    expect(server.sessions).toBe(1);
    await expect(httpClient(server)).rejects.toThrow(/503|session_limit|its limit/);
    await until(() => server.sessions === 0, 5000);
    await expect(first.listTools()).rejects.toThrow(/404|no session|Session not found/i);
    expect((await (await httpClient(server)).listTools()).tools.map((t) => t.name)).toContain('run_adder');
  }, 30_000);

  it(
    'refuses DNS rebinding as the MCP conformance scenario dns-rebinding-protection checks: a ' +
      'foreign Host/Origin 4xx, its own 2xx',
    async () => {
      // What @modelcontextprotocol/conformance 0.1.16 sends: an initialize POST with Host and Origin set to the name.
      const server = await httpServer(join(dir, 'traces'));
      const initialize = (host: string) =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          const body = JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: {
              protocolVersion: '2025-11-25',
              capabilities: {},
              clientInfo: { name: 'conformance-dns-rebinding-test', version: '1.0.0' },
            },
          });
          const req = request(
            `${server.url}/mcp`,
            {
              method: 'POST',
              headers: {
                'content-type': 'application/json',
                host,
                origin: `http://${host}`,
                accept: 'application/json, text/event-stream',
              },
            },
            (res) => {
              let text = '';
              res.setEncoding('utf8').on('data', (t: string) => (text += t));
              res.on('end', () => resolve({ status: res.statusCode!, body: text }));
            },
          );
          req.on('error', reject);
          req.end(body);
        });
      const evil = await initialize('evil.example.com');
      expect(evil.status).toBe(403);
      expect(JSON.parse(evil.body).error).toMatchObject({
        code: 'forbidden_host',
        message: expect.stringMatching(/Host "evil\.example\.com"/),
      });
      const port = new URL(server.url).port;
      for (const host of [`localhost:${port}`, `127.0.0.1:${port}`])
        expect((await initialize(host)).status, host).toBe(200);
      const foreignOrigin = await new Promise<number>((resolve, reject) => {
        const req = request(
          `${server.url}/mcp`,
          {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              origin: 'https://attacker.example',
              accept: 'application/json, text/event-stream',
            },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode!);
          },
        );
        req.on('error', reject);
        req.end('{}');
      });
      expect(foreignOrigin).toBe(403);
    },
  );
});
