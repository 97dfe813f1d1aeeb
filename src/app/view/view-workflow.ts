import type { Trace } from '../../trace/index.js';
import { stateAtStep } from '../../trace/index.js';
import { errorMessage } from '../../core/index.js';
import { recordedWorkflowJson } from '../../kit/workflow/index.js';

/** A workflow node as the viewer draws it: its kind, how it ended (or that it is next / never ran), visits and tokens. */
export interface ViewWorkflowNode {
  id: string;
  kind: string;
  status: 'done' | 'error' | 'current' | 'pending';
  visits: number;
  tokens: number;
  /** Milliseconds the node ran, summed over its visits (null when its records carry no time: older traces). */
  executionTimeMs: number | null;
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
type Rec = {
  node?: unknown;
  status?: unknown;
  tokens?: { input?: number; output?: number; reasoning?: number };
  executionTimeMs?: unknown;
};
type Thread = { status?: unknown; current?: unknown; completed?: unknown };

/**
 * The graph of a workflow run (a trace whose agent config records a `workflow`, or a branch's `workflowRef` found
 * in its parent run's manifest), with each node's status from the thread in the run's last state. Null for other
 * runs. A trace whose last state cannot be rebuilt still shows the graph, every node `pending`, and says why in
 * `warnings`; a branch whose parent run is not there (or records another workflow) shows no graph and says why.
 */
export function viewWorkflow(t: Trace, warnings: string[], branches: readonly Trace[] = []): ViewWorkflow | null {
  const config = t.manifest.agent.config as { workflow?: unknown; workflowRef?: unknown } | undefined;
  let wf: { name?: unknown; nodes?: unknown; edges?: unknown } | undefined;
  try {
    // a branch names its workflow by hash: it is read from its parent run's manifest (and checked)
    wf = (config?.workflowRef === undefined ? config?.workflow : recordedWorkflowJson(t.manifest, t.dir)) as typeof wf;
  } catch (err) {
    warnings.push(`the workflow's graph is not shown: ${errorMessage(err)}`);
    return null;
  }
  if (!wf || !Array.isArray(wf.nodes)) return null;
  const nodes = (wf.nodes as Node[]).filter((n) => typeof n?.id === 'string');
  const edges: ViewWorkflow['edges'] = [];
  for (const e of Array.isArray(wf.edges) ? (wf.edges as Array<{ from?: unknown; to?: unknown }>) : []) {
    if (typeof e?.from === 'string' && typeof e.to === 'string') edges.push({ from: e.from, to: e.to });
  }
  for (const n of nodes) {
    if (typeof n.then === 'string') edges.push({ from: n.id as string, to: n.then, label: 'then' });
    if (typeof n.else === 'string') edges.push({ from: n.id as string, to: n.else, label: 'else' });
    if (n.kind === 'loop-end' && typeof n.loop === 'string')
      edges.push({ from: n.id as string, to: n.loop, label: 'loop' });
  }
  const thread = lastThread(t, warnings, "the workflow's node statuses are not shown");
  // A fork's branches ran as child runs (threads/): their nodes' records are in their own last states.
  const records = [
    ...completedOf(thread),
    ...branches.flatMap((b) =>
      completedOf(lastThread(b, warnings, `the nodes of branch ${b.manifest.runId} are not shown`)),
    ),
  ];
  return {
    name: typeof wf.name === 'string' ? wf.name : 'workflow',
    status: typeof thread?.status === 'string' ? thread.status : 'unknown',
    nodes: nodes.map((n) => {
      const mine = records.filter((r) => r.node === n.id);
      const lastRec = mine.at(-1);
      const status: ViewWorkflowNode['status'] =
        thread?.current === n.id && thread?.status !== 'completed'
          ? 'current'
          : lastRec
            ? lastRec.status === 'error'
              ? 'error'
              : 'done'
            : 'pending';
      const tokens = mine.reduce(
        (sum, r) => sum + (r.tokens ? (r.tokens.input ?? 0) + (r.tokens.output ?? 0) + (r.tokens.reasoning ?? 0) : 0),
        0,
      );
      const timed = mine.filter((r) => typeof r.executionTimeMs === 'number');
      return {
        id: n.id as string,
        kind: typeof n.kind === 'string' ? n.kind : '?',
        status,
        visits: mine.length,
        tokens,
        executionTimeMs: timed.length ? timed.reduce((sum, r) => sum + (r.executionTimeMs as number), 0) : null,
      };
    }),
    edges,
  };
}

/** The workflow thread in a run's last state (undefined for a run with no step, or one whose state cannot be rebuilt). */
function lastThread(t: Trace, warnings: string[], what: string): Thread | undefined {
  const last = t.steps.at(-1)?.step;
  if (last === undefined) return undefined;
  try {
    return (stateAtStep(t, last) as unknown as { thread?: Thread }).thread;
  } catch (err) {
    warnings.push(`${what}: ${(err as Error).message}`);
    return undefined;
  }
}

function completedOf(thread: Thread | undefined): Rec[] {
  return Array.isArray(thread?.completed) ? (thread.completed as Rec[]) : [];
}
