import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { Document, LineCounter } from 'yaml';
import { YamlError, parseYaml, type ParsedYaml } from '../yaml/index.js';
import { WorkflowDefinition, type SourcePosition } from './workflow-definition.js';
import { WorkflowError } from './workflow-error.js';
import { subworkflowCycle } from './subworkflow-cycle.js';

/**
 * Parses and checks a workflow written in YAML (or JSON, which is YAML). Every error names `name`, the line and
 * the column: of the YAML syntax error, of the field of an invalid node config, or of the node or edge the
 * checker refuses.
 */
export function parseWorkflowYaml(text: string, name: string, options: { baseDir?: string } = {}): WorkflowDefinition {
  let parsed: ParsedYaml;
  try {
    parsed = parseYaml(text);
  } catch (err) {
    if (!YamlError.isInstance(err)) throw err;
    throw new WorkflowError(`${name}:${err.line}:${err.column}: ${err.message}`, {
      line: err.line,
      column: err.column,
    });
  }
  const { doc, lines, value: raw } = parsed;
  if (!raw || typeof raw !== 'object' || Array.isArray(raw))
    throw new WorkflowError(`${name}:1:1: a workflow file is a mapping with nodes and edges`, { line: 1, column: 1 });
  const at = (path: readonly (string | number)[]): SourcePosition => position(doc, lines, path);
  const file = raw as { nodes?: unknown; edges?: unknown };
  const nodes = new Map<string, SourcePosition>();
  if (Array.isArray(file.nodes))
    file.nodes.forEach((n, i) => typeof n?.id === 'string' && !nodes.has(n.id) && nodes.set(n.id, at(['nodes', i])));
  const edges = Array.isArray(file.edges) ? file.edges.map((_, i) => at(['edges', i])) : [];
  try {
    return WorkflowDefinition.create(raw as never, {
      name,
      ...(options.baseDir ? { baseDir: options.baseDir } : {}),
      nodes,
      edges,
    });
  } catch (err) {
    if (!WorkflowError.isInstance(err) || err.line !== undefined) throw err;
    // A node config or file-shape error: point at the field inside the node when there is one.
    let pos: SourcePosition = { line: 1, column: 1 };
    if (err.nodeId !== undefined && Array.isArray(file.nodes)) {
      const i = file.nodes.findIndex((n) => n?.id === err.nodeId);
      if (i >= 0) pos = at(['nodes', i, ...(err.field && err.field !== '(config)' ? err.field.split('.') : [])]);
    }
    const message = err.message.startsWith(`${name}: `) ? err.message.slice(name.length + 2) : err.message;
    throw new WorkflowError(`${name}:${pos.line}:${pos.column}: ${message}`, {
      ...(err.nodeId ? { nodeId: err.nodeId } : {}),
      ...(err.field ? { field: err.field } : {}),
      ...pos,
    });
  }
}

/**
 * Reads, parses and checks a workflow file; relative subworkflow paths resolve against its folder. A subworkflow
 * file that leads back to a file on its way (itself, directly or through others) is refused, naming the chain.
 */
export async function loadWorkflowFile(path: string, cwd = process.cwd()): Promise<WorkflowDefinition> {
  const abs = resolve(cwd, path);
  const text = await readFile(abs, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new WorkflowError(
      err.code === 'ENOENT' ? `workflow file not found: ${path}` : `cannot read workflow file ${path}: ${err.message}`,
    );
  });
  const def = parseWorkflowYaml(text, path, { baseDir: dirname(abs) });
  const cycle = await subworkflowCycle(abs, def.toJSON().nodes, cwd);
  if (cycle) {
    const pos = def.source?.nodes?.get(cycle.node.split('/')[0]) ?? { line: 1, column: 1 };
    throw new WorkflowError(
      `${path}:${pos.line}:${pos.column}: subworkflow "${cycle.node}" includes ` +
        `itself: ${cycle.chain}; a workflow that includes itself never ends`,
      { nodeId: cycle.node.split('/')[0], ...pos },
    );
  }
  return def;
}

/** The line and column of the closest node the document has on `path` (a missing field points at its parent). */
function position(doc: Document, lines: LineCounter, path: readonly (string | number)[]): SourcePosition {
  for (let n = path.length; n >= 0; n--) {
    const node = (n === 0 ? doc.contents : doc.getIn(path.slice(0, n), true)) as
      { range?: [number, number, number] } | null | undefined;
    if (node?.range) {
      // A mapping's range starts at its first key, which is where a reader looks for the item.
      const p = lines.linePos(node.range[0]);
      return { line: p.line, column: p.col };
    }
  }
  return { line: 1, column: 1 };
}
