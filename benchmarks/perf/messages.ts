/**
 * Serializing and parsing one 1,000-part message: JSON.stringify, then JSON.parse + zod `Message` validation
 * (what the trace reader and a resumed run do). Target: under 10 ms for both together.
 * Run: npm run bench:messages [-- --parts 1000 --runs 200]
 */
import { Message, emptyTokens, type Part } from '../../src/index.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const PARTS = arg('parts', 1000);
const RUNS = arg('runs', 200);

/** A realistic mix: text, reasoning, completed tool calls with outputs, step boundaries. */
function part(i: number): Part {
  const id = `prt_${i}`;
  switch (i % 5) {
    case 0:
      return { id, type: 'step-start' };
    case 1:
      return {
        id,
        type: 'reasoning',
        text: `Thinking about step ${i}: `.repeat(4),
        time: { start: 1_700_000_000_000 + i, end: 1_700_000_000_050 + i },
      };
    case 2:
      return { id, type: 'text', text: `Thought: check file ${i}\nAction: read(path="src/file-${i}.ts")` };
    case 3:
      return {
        id,
        type: 'tool',
        callID: `call_${i}`,
        tool: 'read',
        origin: 'parsed',
        state: {
          status: 'completed',
          input: { path: `src/file-${i}.ts`, limit: 200 },
          output: `export const value${i} = ${i};\n`.repeat(8),
          title: `src/file-${i}.ts`,
          metadata: { lines: 8 },
          time: { created: 1, start: 2, end: 3 },
        },
      };
    default:
      return {
        id,
        type: 'step-finish',
        reason: 'tool-calls',
        tokens: { input: 1200, output: 80, reasoning: 20, cache: { read: 1000, write: 0 } },
        cost: 0.0012,
      };
  }
}

const message: Message = {
  role: 'assistant',
  info: {
    id: 'msg_bench',
    role: 'assistant',
    time: { created: 1, completed: 2 },
    model: 'scripted:bench',
    tokens: emptyTokens(),
    cost: 0,
  },
  parts: Array.from({ length: PARTS }, (_, i) => part(i)),
};

function time(fn: () => void): number[] {
  for (let i = 0; i < 20; i++) fn(); // warm-up
  const out: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    fn();
    out.push(performance.now() - t0);
  }
  return out.sort((a, b) => a - b);
}

let text = '';
const ser = time(() => {
  text = JSON.stringify(message);
});
const par = time(() => {
  const r = Message.safeParse(JSON.parse(text));
  if (!r.success) throw new Error(`validation failed: ${r.error.issues[0]?.message}`);
});
const both = time(() => {
  const r = Message.safeParse(JSON.parse(JSON.stringify(message)));
  if (!r.success) throw new Error('validation failed');
});
const q = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor(xs.length * p))].toFixed(3);
console.log(`message with ${PARTS} parts, ${(text.length / 1024).toFixed(0)} KB of JSON, ${RUNS} runs`);
console.log(`serialize (JSON.stringify)          median ${q(ser, 0.5)} ms  p95 ${q(ser, 0.95)} ms`);
console.log(`parse (JSON.parse + zod Message)    median ${q(par, 0.5)} ms  p95 ${q(par, 0.95)} ms`);
console.log(`round trip (both)                   median ${q(both, 0.5)} ms  p95 ${q(both, 0.95)} ms  target < 10 ms`);
