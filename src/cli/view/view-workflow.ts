import type { Trace } from '../../trace/index.js';
import { stateAtStep } from '../../trace/index.js';

/** A workflow node as the viewer draws it: its kind, how it ended (or that it is next / never ran), visits and tokens. */
export interface ViewWorkflowNode {
  id: string;
  kind: string;
  status: 'done' | 'error' | 'current' | 'pending';
  visits: number;
  tokens: number;
}

/** A workflow run as its graph with per-node status (the viewer draws it above the steps). */
export interface ViewWorkflow {
  name: string;
  status: string;
  nodes: ViewWorkflowNode[];
  /** Edges of the definition, plus a condition's then/else and a loop's way back (labelled). */
  edges: Array<{ from: string; to: string; label?: string }>;
}

type Node = { id?: unknown; kind?: unknown; then?: unknown; else?: unknown; loop?: unknown };
type Rec = { node?: unknown; status?: unknown; tokens?: { input?: number; output?: number; reasoning?: number } };

/**
 * The graph of a workflow run (a trace whose agent config records a `workflow`), with each node's status from the
 * thread in the run's last state. Null for other runs. A trace whose last state cannot be rebuilt still shows the
 * graph, every node `pending`, and says why in `warnings`.
 */
export function viewWorkflow(t: Trace, warnings: string[]): ViewWorkflow | null {
  const wf = (t.manifest.agent.config as { workflow?: { name?: unknown; nodes?: unknown; edges?: unknown } } | undefined)?.workflow;
  if (!wf || !Array.isArray(wf.nodes)) return null;
  const nodes = (wf.nodes as Node[]).filter((n) => typeof n?.id === 'string');
  const edges: ViewWorkflow['edges'] = [];
  for (const e of Array.isArray(wf.edges) ? (wf.edges as Array<{ from?: unknown; to?: unknown }>) : []) {
    if (typeof e?.from === 'string' && typeof e.to === 'string') edges.push({ from: e.from, to: e.to });
  }
  for (const n of nodes) {
    if (typeof n.then === 'string') edges.push({ from: n.id as string, to: n.then, label: 'then' });
    if (typeof n.else === 'string') edges.push({ from: n.id as string, to: n.else, label: 'else' });
    if (n.kind === 'loop-end' && typeof n.loop === 'string') edges.push({ from: n.id as string, to: n.loop, label: 'loop' });
  }
  let thread: { status?: unknown; current?: unknown; completed?: unknown } | undefined;
  const last = t.steps.at(-1)?.step;
  if (last !== undefined) {
    try {
      thread = (stateAtStep(t, last) as unknown as { thread?: typeof thread }).thread;
    } catch (err) {
      warnings.push(`the workflow's node statuses are not shown: ${(err as Error).message}`);
    }
  }
  const records = Array.isArray(thread?.completed) ? (thread.completed as Rec[]) : [];
  return {
    name: typeof wf.name === 'string' ? wf.name : 'workflow',
    status: typeof thread?.status === 'string' ? thread.status : 'unknown',
    nodes: nodes.map((n) => {
      const mine = records.filter((r) => r.node === n.id);
      const lastRec = mine.at(-1);
      const status: ViewWorkflowNode['status'] = thread?.current === n.id && thread?.status !== 'completed' ? 'current' : lastRec ? (lastRec.status === 'error' ? 'error' : 'done') : 'pending';
      const tokens = mine.reduce((sum, r) => sum + (r.tokens ? (r.tokens.input ?? 0) + (r.tokens.output ?? 0) + (r.tokens.reasoning ?? 0) : 0), 0);
      return { id: n.id as string, kind: typeof n.kind === 'string' ? n.kind : '?', status, visits: mine.length, tokens };
    }),
    edges,
  };
}
