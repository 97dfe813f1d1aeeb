import { readFile } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import { YamlError, parseYaml } from '../yaml/index.js';

/** A subworkflow node that names a file: its node id (with the inline subworkflows it sits in) and the file's absolute path. */
interface FileRef {
  node: string;
  file: string;
}

/**
 * The subworkflow nodes of a workflow's nodes (as written: JSON objects) that name a file, inline subworkflows
 * included (an inline workflow's paths resolve against the same folder as its parent's).
 */
function fileRefs(nodes: unknown, baseDir: string, prefix = ''): FileRef[] {
  if (!Array.isArray(nodes)) return [];
  return nodes.flatMap((n: unknown) => {
    const node = n as { kind?: unknown; id?: unknown; path?: unknown; inline?: { nodes?: unknown } } | null;
    if (node?.kind !== 'subworkflow' || typeof node.id !== 'string') return [];
    const id = `${prefix}${node.id}`;
    if (typeof node.path === 'string') return [{ node: id, file: resolve(baseDir, node.path) }];
    return node.inline && typeof node.inline === 'object' ? fileRefs(node.inline.nodes, baseDir, `${id}/`) : [];
  });
}

/**
 * Follows the subworkflow files of the workflow file `file` (whose nodes are `nodes`) and returns the first chain
 * that comes back to a file already on it, as `a.yaml (node "x") -> b.yaml (node "y") -> a.yaml` with paths relative
 * to `cwd`, or undefined when there is none. Only the files are followed: a subworkflow that includes its own file,
 * even inside a fork's branch or an inline subworkflow, or through other files, runs forever. A file that cannot be
 * read or parsed is not followed (running the node reports it).
 */
export async function subworkflowCycle(
  file: string,
  nodes: unknown,
  cwd: string,
): Promise<{ node: string; chain: string } | undefined> {
  const done = new Set<string>();
  const show = (f: string) => relative(cwd, f) || f;
  const visit = async (
    at: string,
    atNodes: unknown,
    path: Array<{ file: string; node: string }>,
  ): Promise<{ node: string; chain: string } | undefined> => {
    for (const ref of fileRefs(atNodes, dirname(at))) {
      const here = [...path, { file: at, node: ref.node }];
      const loop = here.findIndex((p) => p.file === ref.file);
      if (loop >= 0)
        return {
          node: here[0].node,
          chain: [...here.slice(loop).map((p) => `${show(p.file)} (node "${p.node}")`), show(ref.file)].join(' -> '),
        };
      if (done.has(ref.file)) continue;
      const next = await nodesOf(ref.file);
      if (next === undefined) continue;
      const found = await visit(ref.file, next, here);
      if (found) return found;
      done.add(ref.file);
    }
    return undefined;
  };
  return visit(file, nodes, []);
}

/** The `nodes` of a workflow file as written, or undefined when it cannot be read or is not YAML. */
async function nodesOf(file: string): Promise<unknown> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    return (parseYaml(text).value as { nodes?: unknown } | null)?.nodes;
  } catch (err) {
    if (YamlError.isInstance(err)) return undefined;
    throw err;
  }
}
