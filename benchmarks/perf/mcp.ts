/**
 * MCP speed: what a tool call through an MCP server costs, and how long a large message takes to arrive.
 * (1) The stdio read buffer, in process: one message of 1, 4 and 9 MB fed in 64 KiB chunks (as a pipe delivers
 *     it) to the SDK's ReadBuffer and to qitos's LineReadBuffer, interleaved A B A B, medians.
 * (2) End to end over stdio with the fixture server (test/fixtures/mcp, started through tsx): connect, the round
 *     trip of a small tool call through the executor, a 5 MB result; and the RSS the SDK adds on first use.
 * Targets: a small call under 5 ms over the bare server; a message near the 10 MiB cap in well under a second.
 * Run: npm run bench:mcp ; with -- --write, records the figures in docs/performance.md `## MCP`.
 */
import { resolve } from 'node:path';
import { ReadBuffer, deserializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { ToolRegistry, type ActContext } from '../../src/index.js';
import { MemoryEnv } from '../../src/envs/index.js';
import { ActionExecutor } from '../../src/engine/action-executor.js';
import { McpManager } from '../../src/kit/mcp/index.js';
import { LineReadBuffer } from '../../src/kit/mcp/line-read-buffer.js';
import { writePerformanceSection } from './performance-doc.js';

const ROOT = resolve(import.meta.dirname, '../..');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (ms: number) =>
  ms < 10 ? ms.toFixed(2) : ms < 100 ? ms.toFixed(1) : Math.round(ms).toLocaleString('en-US');

/** Feeds one newline-terminated JSON-RPC message of `mb` MB in 64 KiB chunks; ms until it is read. */
function feed(buffer: { append(c: Buffer): void; readMessage(): unknown }, message: Buffer): number {
  const t0 = performance.now();
  for (let i = 0; i < message.length; i += 65_536) {
    buffer.append(message.subarray(i, i + 65_536));
    if (buffer.readMessage() !== null) break;
  }
  return performance.now() - t0;
}

const rows: string[] = [];
for (const mb of [1, 4, 9]) {
  const text = 'x'.repeat(mb * 1024 * 1024 - 100);
  const message = Buffer.from(
    JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text }] } }) + '\n',
  );
  const sdk: number[] = [];
  const ours: number[] = [];
  for (let round = 0; round < 3; round++) {
    sdk.push(feed(new ReadBuffer({ maxBufferSize: 10 * 1024 * 1024 }), message));
    ours.push(feed(new LineReadBuffer(10 * 1024 * 1024, deserializeMessage), message));
  }
  rows.push(`| ${mb} MB | ${fmt(median(sdk))} ms | ${fmt(median(ours))} ms |`);
  console.log(`read buffer ${mb} MB: SDK ${fmt(median(sdk))} ms, LineReadBuffer ${fmt(median(ours))} ms`);
}

const rssBefore = process.memoryUsage().rss;
const server = {
  type: 'stdio' as const,
  command: process.execPath,
  args: ['--import', 'tsx', resolve(ROOT, 'test/fixtures/mcp/server.ts')],
  cwd: ROOT,
  timeout: 60_000,
};
const connects: number[] = [];
for (let i = 0; i < 3; i++) {
  const t0 = performance.now();
  const m = await McpManager.connect({ fx: server });
  connects.push(performance.now() - t0);
  await m.close();
}
const rssSdk = process.memoryUsage().rss - rssBefore;

const manager = await McpManager.connect({ fx: server });
const registry = new ToolRegistry();
manager.attach(registry);
const executor = new ActionExecutor(registry, { timeoutMs: 60_000 });
const ctx: ActContext = {
  runId: 'bench',
  traceDir: null,
  step: 1,
  env: new MemoryEnv(),
  state: {},
  signal: new AbortController().signal,
  services: {},
  onState: () => undefined,
  depth: 0,
  callModel: () => Promise.reject(new Error('no model in this benchmark')),
  childLink: () => ({ runId: 'bench', path: null, kind: 'subtask', depth: 1 }),
};
async function call(name: string, args: Record<string, unknown>): Promise<number> {
  const t0 = performance.now();
  const [r] = await executor.run([{ id: 'c', name, args }], ctx);
  if (r.status !== 'success') throw new Error(`${name} failed: ${r.error}`);
  return performance.now() - t0;
}
for (let i = 0; i < 20; i++) await call('fx_add', { a: i, b: 1 });
const small: number[] = [];
for (let i = 0; i < 300; i++) small.push(await call('fx_add', { a: i, b: 1 }));
const large: number[] = [];
for (let i = 0; i < 3; i++) large.push(await call('fx_big', { mb: 5 }));
await manager.close();
console.log(
  `connect ${fmt(median(connects))} ms, small call ${fmt(median(small))} ms, 5 MB ` +
    `result ${fmt(median(large))} ms, SDK RSS +${Math.round(rssSdk / 1e6)} MB`,
);

writePerformanceSection(`## MCP

\`npm run bench:mcp\` (\`benchmarks/perf/mcp.ts\`). Measured ${new Date().toISOString().slice(0, 10)} on the shared 2-core machine while other
work ran (noisy: each figure is a median, and the A/B columns were run interleaved in the same process).

**Taking in one large message over stdio.** The SDK's stdio transport buffers with \`Buffer.concat\` of the whole
buffer and searches all of it for a newline on every 64 KiB chunk, which is quadratic in the message size;
\`LineReadBuffer\` (\`src/kit/mcp/line-read-buffer.ts\`, swapped into the SDK's transport) keeps the chunks and
searches only the new one. One JSON-RPC message fed in 64 KiB chunks, median of 3:

| message | SDK ReadBuffer | LineReadBuffer |
|---|---|---|
${rows.join('\n')}

**End to end over stdio** (the fixture server, a Node process started through tsx; calls through the
ActionExecutor as in a run):

| what | median |
|---|---|
| connect (spawn, handshake, tools/list) | ${fmt(median(connects))} ms |
| small tool call (\`add\`), 300 calls | ${fmt(median(small))} ms |
| tool call returning 5 MB of text | ${fmt(median(large))} ms |

Loading the MCP SDK on the first connection adds ~${Math.round(rssSdk / 1e6)} MB of RSS; importing \`qitos-ts\` loads none of it
(test/kit/mcp/mcp-lazy-load.test.ts).
`);
