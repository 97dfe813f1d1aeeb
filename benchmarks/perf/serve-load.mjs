/**
 * The load generator of benchmarks/perf/serve.ts (plain JavaScript: a worker thread does not get tsx's loader), run in
 * a worker thread so the client's work stays off the server's event loop, as a real client's is. For each round it
 * is sent (`{ url, r, requests, concurrency, client }`), it sends `requests` streamed chat completions at `concurrency`,
 * each asking its own question, and posts back the latency of each and how many were lost or answered wrongly.
 *
 * Two clients: `sdk` is the `openai` SDK (what users run); `http` is a lean one on `node:http` with a keep-alive
 * agent that reads the SSE frames itself. Both check every answer and the usage chunk. The lean one exists because
 * on a 2-core machine the client shares the CPU with the server: the SDK (undici, web streams, its SSE decoder)
 * costs several times the server's own work per request, and that contention is not the server's overhead.
 */
import { Agent, request } from 'node:http';
import { parentPort } from 'node:worker_threads';
import OpenAI from 'openai';

const agent = new Agent({ keepAlive: true, maxSockets: 64 });
const sdks = new Map();
/** One SDK client per server (each keeps its connections). */
const sdkFor = (url) =>
  sdks.get(url) ?? sdks.set(url, new OpenAI({ baseURL: `${url}/v1`, apiKey: 'none', maxRetries: 0 })).get(url);

/** The answer text of one streamed completion and whether its usage chunk came, through the SDK. */
async function viaSdk(url, question) {
  const stream = await sdkFor(url).chat.completions.create({
    model: 'echo',
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: 'user', content: question }],
  });
  let content = '';
  let usage = false;
  for await (const c of stream) {
    content += c.choices[0]?.delta.content ?? '';
    if (c.usage) usage = true;
  }
  return { content, usage };
}

/** The same through `node:http`: frames are split on blank lines, each `data:` line parsed as JSON until `[DONE]`. */
function viaHttp(url, question) {
  const body = JSON.stringify({
    model: 'echo',
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: 'user', content: question }],
  });
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/v1/chat/completions`,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          return reject(new Error(`status ${res.statusCode}`));
        }
        res.setEncoding('utf8');
        let buf = '';
        let content = '';
        let usage = false;
        let done = false;
        res.on('data', (text) => {
          buf += text;
          for (let end = buf.indexOf('\n\n'); end >= 0; end = buf.indexOf('\n\n')) {
            const frame = buf.slice(0, end);
            buf = buf.slice(end + 2);
            if (!frame.startsWith('data: ')) continue;
            const data = frame.slice(6);
            if (data === '[DONE]') done = true;
            else {
              const c = JSON.parse(data);
              if (c.error) return reject(new Error(c.error.message));
              content += c.choices[0]?.delta.content ?? '';
              if (c.usage) usage = true;
            }
          }
        });
        res.on('end', () => (done ? resolve({ content, usage }) : reject(new Error('the stream ended before [DONE]'))));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** One round: `requests` streamed completions at `concurrency`. */
async function round({ url, r, requests, concurrency, client }) {
  const send = client === 'sdk' ? viaSdk : viaHttp;
  const latencies = new Array(requests);
  let lost = 0;
  let wrong = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests) {
        const i = next++;
        const t0 = performance.now();
        try {
          const { content, usage } = await send(url, `question ${r}-${i}`);
          if (content !== `answer to question ${r}-${i}` || !usage) wrong++;
        } catch {
          lost++;
        }
        latencies[i] = performance.now() - t0;
      }
    }),
  );
  return { latencies, lost, wrong };
}

// One worker serves every round (warm-up included), so its connections and JIT are warm when it is measured.
parentPort.on('message', async (r) => parentPort.postMessage(await round(r)));
