import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { canonicalJson, errorMessage, type Manifest } from '../../core/index.js';
import { WorkflowError } from './workflow-error.js';

/**
 * How a child thread's manifest names its workflow when its parent run's manifest already holds that exact one
 * (`agent.config.workflowRef`): the sha-256 (hex) of the workflow's canonical JSON. A fork of 50 branches then writes
 * the workflow once, not 100 times (each branch writes its manifest at start and at end).
 */
export interface WorkflowRef {
  sha256: string;
}

/** How many parent links a reference may follow (a branch of a branch of ...) before it is taken as a loop. */
const MAX_PARENT_LINKS = 64;

/** The sha-256 (hex) a workflow reference names: of the canonical JSON of the workflow's JSON form. */
export function workflowSha256(json: unknown): string {
  return createHash('sha256').update(canonicalJson(json)).digest('hex');
}

/** Whether a run's manifest records a workflow run (whole or by reference), without reading anything else. */
export function isWorkflowManifest(m: Pick<Manifest, 'agent'>): boolean {
  const c = m.agent.config;
  return m.agent.name === 'WorkflowAgent' && (c?.workflow !== undefined || c?.workflowRef !== undefined);
}

/** The reference a manifest records (`agent.config.workflowRef`), or undefined when it holds the workflow whole. */
export function recordedWorkflowRef(m: Pick<Manifest, 'agent'>): WorkflowRef | undefined {
  const ref = m.agent.config?.workflowRef as { sha256?: unknown } | undefined;
  if (ref === undefined) return undefined;
  if (typeof ref !== 'object' || ref === null || typeof ref.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(ref.sha256))
    throw new WorkflowError('agent.config.workflowRef: expected { sha256: <64 hex digits> }');
  return { sha256: ref.sha256 };
}

/**
 * The workflow (its JSON form, not yet checked) that the manifest of the run in `dir` records, or undefined when
 * the run is not a workflow run. A manifest holds it whole (`agent.config.workflow`: top-level runs, subworkflows,
 * traces written before references) or names it by hash (`agent.config.workflowRef`: a fork's branch); a reference
 * is looked up in the parent run's manifest (through its own parent when that one is a branch too) and its hash
 * checked. The parent run is the folder that holds this one (`<parent>/threads/<id>`), or else the one its parent
 * link names. A parent that is not there, or that records another workflow, is a WorkflowError naming the parent
 * run and the hash: a branch is never rebuilt with a workflow other than the one it ran.
 */
export function recordedWorkflowJson(m: Manifest, dir: string): unknown {
  if (!isWorkflowManifest(m)) return undefined;
  let manifest = m;
  let at = resolve(dir);
  for (let links = 0; ; links++) {
    let ref: WorkflowRef | undefined;
    try {
      ref = recordedWorkflowRef(manifest);
    } catch (err) {
      throw new WorkflowError(`manifest.json in ${at}: ${errorMessage(err)}`);
    }
    if (!ref) return manifest.agent.config?.workflow;
    if (links === MAX_PARENT_LINKS)
      throw new WorkflowError(`trace ${dir}: its workflow reference is not resolved after ${links} parent runs`);
    const parent = parentManifest(manifest, at, ref);
    if (!isWorkflowManifest(parent.manifest))
      throw new WorkflowError(
        `trace ${at} names its workflow by hash (sha256 ${ref.sha256}), but its parent run ` +
          `${parent.manifest.runId} (${parent.dir}) is not a workflow run`,
      );
    // The parent holds it whole: check it here; by reference: the same hash, looked up one level further up.
    let held: WorkflowRef | undefined;
    try {
      held = recordedWorkflowRef(parent.manifest);
    } catch (err) {
      throw new WorkflowError(`manifest.json in ${parent.dir}: ${errorMessage(err)}`);
    }
    const actual = held?.sha256 ?? workflowSha256(parent.manifest.agent.config?.workflow);
    if (actual !== ref.sha256)
      throw new WorkflowError(
        `trace ${at} names its workflow by hash (sha256 ${ref.sha256}), but its parent run ` +
          `${parent.manifest.runId} (${parent.dir}) records another workflow (sha256 ${actual}): the parent's ` +
          `manifest was changed, or the folder is another run's`,
      );
    manifest = parent.manifest;
    at = parent.dir;
  }
}

/**
 * The manifest of the parent run of the run in `dir` (which names its workflow by `ref`): the folder holding `dir`
 * when it is `<parent>/threads/<id>` and has the parent's run id, else the folder the parent link names.
 */
function parentManifest(m: Manifest, dir: string, ref: WorkflowRef): { manifest: Manifest; dir: string } {
  const link = m.parent;
  if (!link)
    throw new WorkflowError(
      `trace ${dir} names its workflow by hash (sha256 ${ref.sha256}) but has no parent run to hold it`,
    );
  const candidates: string[] = [];
  if (basename(dirname(dir)) === 'threads') candidates.push(dirname(dirname(dir)));
  if (link.path !== null && !candidates.includes(resolve(link.path))) candidates.push(resolve(link.path));
  const problems: string[] = [];
  for (const c of candidates) {
    let parsed: Manifest;
    try {
      parsed = JSON.parse(readFileSync(join(c, 'manifest.json'), 'utf8')) as Manifest;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      problems.push(`${c}: ${code === 'ENOENT' ? 'no manifest.json' : errorMessage(err)}`);
      continue;
    }
    if (parsed?.runId === link.runId && typeof parsed.agent === 'object' && parsed.agent !== null)
      return { manifest: parsed, dir: c };
    problems.push(`${c}: manifest.json is run ${String(parsed?.runId)}`);
  }
  throw new WorkflowError(
    `trace ${dir} names its workflow by hash (sha256 ${ref.sha256}), held by its parent run ${link.runId}, ` +
      `which is not there (${problems.join('; ') || 'its parent link names no folder'}): copy the branch ` +
      `together with its parent run's folder (the branch is its threads/ subfolder)`,
  );
}
