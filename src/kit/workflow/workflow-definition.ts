import { formatZodIssue } from '../../core/index.js';
import { checkWorkflow, type WorkflowProblem } from './check-workflow.js';
import { isNodeConfig, nodeConfigFromJSON, type NodeConfig } from './nodes/node-config.js';
import { workflowSha256 } from './recorded-workflow.js';
import { WorkflowError } from './workflow-error.js';
import { WorkflowFile, type WorkflowEdge } from './workflow-file.js';

/** Where a node or an edge was written (a YAML file's line and column), for error messages. */
export interface SourcePosition {
  line: number;
  column: number;
}

/** Where each part of a definition came from, when it came from a file. */
export interface WorkflowSource {
  /** The file name used in messages. */
  name: string;
  /** The folder that relative subworkflow paths resolve against. */
  baseDir?: string;
  nodes?: ReadonlyMap<string, SourcePosition>;
  edges?: readonly (SourcePosition | undefined)[];
}

/** What `WorkflowDefinition.create` accepts: the file form, with nodes as JSON or as node config instances. */
export type WorkflowInput = Omit<Partial<WorkflowFile>, 'nodes'> & {
  nodes: ReadonlyArray<NodeConfig | Record<string, unknown>>;
};

/**
 * A checked workflow: nodes by id, edges, default variables. Immutable. Made with `create` (in code) or
 * `parseWorkflowYaml`/`loadWorkflowFile`; both run the checker, so a definition that exists is runnable.
 */
export class WorkflowDefinition {
  readonly name: string;
  readonly description: string | undefined;
  readonly vars: Readonly<Record<string, unknown>>;
  readonly nodes: ReadonlyMap<string, NodeConfig>;
  readonly edges: readonly WorkflowEdge[];
  readonly source: WorkflowSource | undefined;
  private readonly out: ReadonlyMap<string, readonly string[]>;
  /** The JSON form, built on first use: every run of the workflow (each fork branch is one) records it in its manifest. */
  private readonly memo: { json?: Readonly<WorkflowFile>; sha256?: string } = {};

  private constructor(
    file: {
      name: string;
      description?: string;
      vars: Record<string, unknown>;
      nodes: NodeConfig[];
      edges: WorkflowEdge[];
    },
    source: WorkflowSource | undefined,
  ) {
    this.name = file.name;
    this.description = file.description;
    this.vars = Object.freeze(structuredClone(file.vars));
    this.nodes = new Map(file.nodes.map((n) => [n.id, n]));
    this.edges = Object.freeze(file.edges.map((e) => Object.freeze({ from: e.from, to: e.to })));
    this.source = source;
    const out = new Map<string, string[]>();
    for (const e of this.edges) out.set(e.from, [...(out.get(e.from) ?? []), e.to]);
    this.out = out;
    Object.freeze(this);
  }

  /**
   * Validates and checks a workflow. Throws a WorkflowError naming the node and field of an invalid config, or
   * listing every problem the checker found (with line and column when `source` has them).
   */
  static create(input: WorkflowInput, source?: WorkflowSource): WorkflowDefinition {
    const def = WorkflowDefinition.unchecked(input, source);
    const problems = checkWorkflow(def, {
      checkInline: (inline) => void WorkflowDefinition.create(inline as WorkflowInput),
    });
    if (problems.length) throw problemsError(problems, source);
    return def;
  }

  /** Builds a definition without the checker (for `checkWorkflow` callers that want every problem, not an error). */
  static unchecked(input: WorkflowInput, source?: WorkflowSource): WorkflowDefinition {
    const { nodes, ...rest } = input;
    const parsed = WorkflowFile.safeParse({ ...rest, nodes: nodes.map((n) => (isNodeConfig(n) ? n.toJSON() : n)) });
    if (!parsed.success)
      throw new WorkflowError(
        `${source ? `${source.name}: ` : ''}${formatZodIssue(parsed.error.issues[0], '(workflow)')}`,
      );
    const configs = parsed.data.nodes.map((n) => nodeConfigFromJSON(n));
    const ids = new Set<string>();
    for (const n of configs) {
      if (ids.has(n.id))
        throw new WorkflowError(`${source ? `${source.name}: ` : ''}node id "${n.id}" is used by more than one node`, {
          nodeId: n.id,
          field: 'id',
        });
      ids.add(n.id);
    }
    return new WorkflowDefinition({ ...parsed.data, nodes: configs }, source);
  }

  /** The node with this id; throws a WorkflowError for an unknown id. */
  node(id: string): NodeConfig {
    const n = this.nodes.get(id);
    if (!n) throw new WorkflowError(`workflow "${this.name}" has no node "${id}"`, { nodeId: id });
    return n;
  }

  /** The ids an edge leads to from `id`, in file order. */
  successors(id: string): readonly string[] {
    return this.out.get(id) ?? [];
  }

  /** The start node (the checker makes sure there is exactly one). */
  get start(): NodeConfig {
    for (const n of this.nodes.values()) if (n.kind === 'start') return n;
    throw new WorkflowError(`workflow "${this.name}" has no start node`);
  }

  /**
   * The JSON form (what a workflow file holds). Built once and deeply frozen, as the definition is: spread or
   * `structuredClone` it to make a changed copy.
   */
  toJSON(): Readonly<WorkflowFile> {
    return (this.memo.json ??= deepFrozen({
      name: this.name,
      ...(this.description !== undefined ? { description: this.description } : {}),
      vars: structuredClone(this.vars) as Record<string, unknown>,
      nodes: [...this.nodes.values()].map((n) => n.toJSON() as Record<string, unknown>),
      edges: this.edges.map((e) => ({ ...e })),
    }));
  }

  /** The sha-256 (hex) of the canonical JSON of `toJSON()`: what a branch's manifest names it by (`workflowRef`). */
  get sha256(): string {
    return (this.memo.sha256 ??= workflowSha256(this.toJSON()));
  }
}

/** `value` with every object and array in it frozen. */
function deepFrozen<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFrozen(v);
    Object.freeze(value);
  }
  return value;
}

/** One WorkflowError listing every problem, each prefixed with its place (`file:line:column`) when known. */
function problemsError(problems: WorkflowProblem[], source: WorkflowSource | undefined): WorkflowError {
  const where = (p: WorkflowProblem): SourcePosition | undefined =>
    p.edge !== undefined ? source?.edges?.[p.edge] : p.nodeId !== undefined ? source?.nodes?.get(p.nodeId) : undefined;
  const lines = problems.map((p) => {
    const pos = where(p);
    return `${source ? `${source.name}:${pos ? `${pos.line}:${pos.column}:` : ''} ` : ''}${p.message}`;
  });
  const first = problems[0];
  const pos = where(first);
  const head =
    problems.length === 1
      ? lines[0]
      : `workflow has ${problems.length} problems:\n${lines.map((l) => `- ${l}`).join('\n')}`;
  return new WorkflowError(head, { ...(first.nodeId ? { nodeId: first.nodeId } : {}), ...(pos ?? {}) });
}
