/**
 * The load generator of benchmarks/perf/serve.ts (plain JavaScript: a worker thread does not get tsx's loader), run in a worker thread so the client's work (HTTP, SSE parsing
 * in the `openai` SDK) is off the server's event loop, as a real client's is. For each round it is sent
 * (`{ r, requests, concurrency }`), it sends `requests` streamed chat completions at `concurrency`, each asking its own question, and posts back
 * the latency of each and how many were lost or answered wrongly.
 */
import { parentPort, workerData } from 'node:worker_threads';
import OpenAI from 'openai';

const { url } = workerData;
const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'none', maxRetries: 0 });

/** One round: `requests` streamed completions at `concurrency`. */
async function round({ r, requests, concurrency }) {
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
          const stream = await client.chat.completions.create({ model: 'echo', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: `question ${r}-${i}` }] });
          let content = '';
          let usage = false;
          for await (const c of stream) {
            content += c.choices[0]?.delta.content ?? '';
            if (c.usage) usage = true;
          }
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
