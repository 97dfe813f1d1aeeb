import { errorMessage } from '../../core/index.js';
import { parseExpr } from '../expr/index.js';
import type { NodeConfig } from './nodes/node-config.js';
import type { WorkflowEdge } from './workflow-file.js';

/** What the checker reads of a workflow (a WorkflowDefinition). */
export interface WorkflowGraph {
  readonly nodes: ReadonlyMap<string, NodeConfig>;
  readonly edges: readonly WorkflowEdge[];
  successors(id: string): readonly string[];
  node(id: string): NodeConfig;
}

/** Options of {@link checkWorkflow}. */
export interface CheckWorkflowOptions {
  /** Checks an inline subworkflow (throws when it is refused); `WorkflowDefinition.create` passes itself. */
  checkInline?: (inline: Record<string, unknown>) => void;
}

/** One thing the checker refuses: what is wrong, and the node (or edge, by index) it is about. */
export interface WorkflowProblem {
  message: string;
  nodeId?: string;
  edge?: number;
}

/** Kinds that go on by exactly one edge (condition names its targets; fork has one edge per branch; end has none). */
const ONE_WAY = new Set([
  'start',
  'llm',
  'tool',
  'context',
  'join',
  'loop-start',
  'loop-end',
  'subworkflow',
  'interrupt',
]);

/**
 * Everything that would make a workflow fail or hang at run time, found before it runs: no start or end, a
 * duplicate id, an edge or target naming an unknown node, a node with the wrong number of edges out, a cycle
 * that no loop bounds (loops go round only through a loop-start/loop-end pair, so explicit edges must not form
 * one), a loop end without its loop start, a fork without its join or a join without its fork, a branch that
 * ends the workflow before its join, an unreachable node, an expression that does not parse, an inline
 * subworkflow that is itself refused (with `checkInline`).
 */
export function checkWorkflow(def: WorkflowGraph, options: CheckWorkflowOptions = {}): WorkflowProblem[] {
  const problems: WorkflowProblem[] = [];
  const add = (message: string, at: { nodeId?: string; edge?: number } = {}) => problems.push({ message, ...at });
  const nodes = [...def.nodes.values()];
  const kindOf = (id: string) => def.nodes.get(id)?.kind;

  const starts = nodes.filter((n) => n.kind === 'start');
  if (starts.length === 0) add('the workflow has no start node (a node of kind "start")');
  if (starts.length > 1)
    add(`the workflow has ${starts.length} start nodes (${starts.map((s) => s.id).join(', ')}); it needs exactly one`, {
      nodeId: starts[1].id,
    });
  if (!nodes.some((n) => n.kind === 'end')) add('the workflow has no end node (a node of kind "end")');

  // edges and named targets
  def.edges.forEach((e, i) => {
    if (!def.nodes.has(e.from)) add(`edge ${e.from} -> ${e.to}: there is no node "${e.from}"`, { edge: i });
    if (!def.nodes.has(e.to)) add(`edge ${e.from} -> ${e.to}: there is no node "${e.to}"`, { edge: i });
  });
  for (const n of nodes) {
    const out = def.successors(n.id);
    if (ONE_WAY.has(n.kind) && out.length !== 1)
      add(`node "${n.id}" (${n.kind}) needs exactly one edge out, has ${out.length}`, { nodeId: n.id });
    if ((n.kind === 'end' || n.kind === 'condition') && out.length)
      add(
        `node "${n.id}" (${n.kind}) must have no edges out${n.kind === 'condition' ? ' (it names its targets in then/else)' : ''}`,
        { nodeId: n.id },
      );
    if (n.kind === 'fork' && out.length < 1) add(`fork "${n.id}" has no branches (edges out)`, { nodeId: n.id });
    if (n.kind === 'condition') {
      for (const t of [n.then, n.else])
        if (!def.nodes.has(t)) add(`condition "${n.id}" goes to "${t}", which is not a node`, { nodeId: n.id });
      expression(n.id, 'expression', n.expression, add);
    }
    if (n.kind === 'tool' && n.extract !== undefined) expression(n.id, 'extract', n.extract, add);
    if (n.kind === 'join') {
      const k = kindOf(n.fork);
      if (k !== 'fork')
        add(`join "${n.id}" joins "${n.fork}", which is ${k ? `a ${k} node, not a fork` : 'not a node'}`, {
          nodeId: n.id,
        });
    }
    if (n.kind === 'loop-end') {
      const k = kindOf(n.loop);
      if (k !== 'loop-start')
        add(`loop end "${n.id}" closes "${n.loop}", which is ${k ? `a ${k} node, not a loop start` : 'not a node'}`, {
          nodeId: n.id,
        });
      if (n.while !== undefined) expression(n.id, 'while', n.while, add);
    }
    if (n.kind === 'subworkflow' && n.inline && options.checkInline) {
      try {
        options.checkInline(n.inline);
      } catch (err) {
        add(`subworkflow "${n.id}": inline workflow: ${errorMessage(err)}`, { nodeId: n.id });
      }
    }
  }
  if (problems.length) return problems; // the graph checks below need known targets

  const next = (n: NodeConfig): string[] => (n.kind === 'condition' ? [n.then, n.else] : [...def.successors(n.id)]);

  // forks and joins: each fork has one join, and every branch reaches it without ending the workflow
  for (const f of nodes.filter((n) => n.kind === 'fork')) {
    const joins = nodes.filter((n) => n.kind === 'join' && n.fork === f.id);
    if (joins.length !== 1) {
      add(
        joins.length
          ? `fork "${f.id}" has ${joins.length} joins (${joins.map((j) => j.id).join(', ')}); it needs exactly one`
          : `fork "${f.id}" has no join (a join node with fork: ${f.id})`,
        { nodeId: f.id },
      );
      continue;
    }
    const join = joins[0].id;
    for (const b of def.successors(f.id)) {
      const reach = walk(b, (id) => (id === join ? [] : next(def.node(id))));
      if (!reach.has(join)) add(`branch "${b}" of fork "${f.id}" never reaches its join "${join}"`, { nodeId: f.id });
      for (const id of reach)
        if (kindOf(id) === 'end')
          add(`branch "${b}" of fork "${f.id}" can reach end "${id}" before its join "${join}"`, { nodeId: f.id });
    }
  }
  for (const l of nodes.filter((n) => n.kind === 'loop-start')) {
    const ends = nodes.filter((n) => n.kind === 'loop-end' && n.loop === l.id);
    if (ends.length !== 1)
      add(
        ends.length
          ? `loop start "${l.id}" has ${ends.length} loop ends; it needs exactly one`
          : `loop start "${l.id}" has no loop end (a loop-end node with loop: ${l.id})`,
        { nodeId: l.id },
      );
    else if (!walk(l.id, (id) => next(def.node(id))).has(ends[0].id))
      add(`loop end "${ends[0].id}" cannot be reached from its loop start "${l.id}"`, { nodeId: l.id });
  }

  // unbounded cycles: loops go round through loop-end's bounded jump, never through an explicit edge
  const cycle = findCycle(
    nodes.map((n) => n.id),
    (id) => next(def.node(id)),
  );
  if (cycle)
    add(`the edges ${cycle.join(' -> ')} form a loop without a bound: use a loop-start (with max) and a loop-end`, {
      nodeId: cycle[0],
    });

  if (starts.length === 1) {
    const reach = walk(starts[0].id, (id) => next(def.node(id)));
    for (const n of nodes)
      if (!reach.has(n.id)) add(`node "${n.id}" cannot be reached from the start "${starts[0].id}"`, { nodeId: n.id });
  }
  return problems;
}

function expression(
  nodeId: string,
  field: string,
  source: string,
  add: (m: string, at: { nodeId: string }) => void,
): void {
  try {
    parseExpr(source);
  } catch (err) {
    add(`node "${nodeId}": ${field}: ${errorMessage(err)}`, { nodeId });
  }
}

/** Every id reachable from `from` (itself included). */
function walk(from: string, next: (id: string) => readonly string[]): Set<string> {
  const seen = new Set<string>([from]);
  const stack = [from];
  while (stack.length)
    for (const n of next(stack.pop()!))
      if (!seen.has(n)) {
        seen.add(n);
        stack.push(n);
      }
  return seen;
}

/** A cycle of the graph as the ids along it (first repeated at the end), or undefined. Iterative DFS (deep graphs). */
function findCycle(ids: readonly string[], next: (id: string) => readonly string[]): string[] | undefined {
  const state = new Map<string, 1 | 2>(); // 1: on the path, 2: done
  for (const root of ids) {
    if (state.has(root)) continue;
    const path: string[] = [];
    const stack: Array<{ id: string; i: number }> = [{ id: root, i: 0 }];
    state.set(root, 1);
    path.push(root);
    while (stack.length) {
      const top = stack[stack.length - 1];
      const out = next(top.id);
      if (top.i < out.length) {
        const n = out[top.i++];
        const s = state.get(n);
        if (s === 1) return [...path.slice(path.indexOf(n)), n];
        if (s === undefined) {
          state.set(n, 1);
          path.push(n);
          stack.push({ id: n, i: 0 });
        }
      } else {
        state.set(top.id, 2);
        path.pop();
        stack.pop();
      }
    }
  }
  return undefined;
}
