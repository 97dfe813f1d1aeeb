/**
 * The workflow shapes of benchmarks/perf/workflow.ts, built with LangGraph.js (plain JavaScript: this folder has its
 * own package.json and node_modules, installed by the benchmark). Each node does what the qitos side's tool does:
 * nothing but update the state. `checkpoint` adds LangGraph's MemorySaver, its record of every step (what resume
 * and time travel read), as the qitos side writes its trace.
 */
import { Annotation, END, MemorySaver, START, StateGraph } from '@langchain/langgraph';

const State = Annotation.Root({
  count: Annotation({ reducer: (_a, b) => b, default: () => 0 }),
  results: Annotation({ reducer: (a, b) => a.concat(b), default: () => [] }),
});

let thread = 0;
const config = (checkpoint) => ({ recursionLimit: 10_000, ...(checkpoint ? { configurable: { thread_id: `t${thread++}` } } : {}) });

/** A chain of `n` nodes, each adding 1 to `count`; returns the run function. */
export function linear(n, checkpoint) {
  const g = new StateGraph(State);
  for (let i = 0; i < n; i++) g.addNode(`n${i}`, (s) => ({ count: s.count + 1 }));
  g.addEdge(START, 'n0');
  for (let i = 1; i < n; i++) g.addEdge(`n${i - 1}`, `n${i}`);
  g.addEdge(`n${n - 1}`, END);
  const app = g.compile(checkpoint ? { checkpointer: new MemorySaver() } : {});
  return async () => {
    const out = await app.invoke({ count: 0 }, config(checkpoint));
    if (out.count !== n) throw new Error(`langgraph linear: count ${out.count}, expected ${n}`);
  };
}

/** A fan-out of `n` branches run in one superstep, then a join that reads every branch's result. */
export function fanout(n, checkpoint) {
  const g = new StateGraph(State);
  g.addNode('fan', () => ({}));
  for (let i = 0; i < n; i++) g.addNode(`b${i}`, () => ({ results: [`branch ${i}`] }));
  g.addNode('join', (s) => ({ count: s.results.length }));
  g.addEdge(START, 'fan');
  for (let i = 0; i < n; i++) {
    g.addEdge('fan', `b${i}`);
    g.addEdge(`b${i}`, 'join');
  }
  g.addEdge('join', END);
  const app = g.compile(checkpoint ? { checkpointer: new MemorySaver() } : {});
  return async () => {
    const out = await app.invoke({ count: 0 }, config(checkpoint));
    if (out.count !== n) throw new Error(`langgraph fan-out: joined ${out.count}, expected ${n}`);
  };
}
