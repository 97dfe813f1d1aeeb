import { cpSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { Manifest } from '../../../src/core/index.js';
import { ScriptedModel } from '../../../src/kit/testing/index.js';
import {
  WorkflowDefinition,
  WorkflowError,
  forkWorkflow,
  readWorkflowTrace,
  recordedWorkflowJson,
  runWorkflow,
  workflowSha256,
} from '../../../src/kit/workflow/index.js';
import { readTrace } from '../../../src/trace/index.js';
import { echo, fanOutWorkflow } from '../../helpers/workflow-fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'qitos-wf-ref-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fanOut = (name = 'fan-out') => fanOutWorkflow({ name });

/** Runs `def` traced into a folder of its own; returns the run's folder and its threads' folders. */
async function traced(def: WorkflowDefinition): Promise<{ traceDir: string; threads: string[] }> {
  const r = await runWorkflow(def, {
    model: new ScriptedModel([]),
    tools: [echo],
    trace: { dir: mkdtempSync(join(dir, 'run-')) },
  });
  expect(r.status).toBe('completed');
  const threads = join(r.traceDir!, 'threads');
  return { traceDir: r.traceDir!, threads: readdirSync(threads).map((t) => join(threads, t)) };
}

const manifestOf = (d: string): Manifest => JSON.parse(readFileSync(join(d, 'manifest.json'), 'utf8')) as Manifest;

describe('a branch names its workflow by hash', () => {
  it("records workflowRef, not the workflow, and is read back through its parent run's manifest", async () => {
    const def = WorkflowDefinition.create(fanOut());
    const { traceDir, threads } = await traced(def);
    expect(threads).toHaveLength(2);
    expect(manifestOf(traceDir).agent.config?.workflow).toEqual(def.toJSON());
    for (const t of threads) {
      const m = manifestOf(t);
      expect(m.agent.config).toMatchObject({ workflowRef: { sha256: def.sha256 }, thread: { fork: 'fan' } });
      expect(m.agent.config?.workflow).toBeUndefined();
      expect(recordedWorkflowJson(m, t)).toEqual(def.toJSON());
      // the whole workflow is written once, in the parent's manifest
      expect(statSync(join(t, 'manifest.json')).size).toBeLessThan(statSync(join(traceDir, 'manifest.json')).size);
    }
    // resume and fork compare the caller's workflow with the reference: the same passes, a changed one is refused
    await expect(readWorkflowTrace(threads[0], def, false)).resolves.toMatchObject({ dir: threads[0] });
    const changed = WorkflowDefinition.create({ ...fanOut(), vars: { extra: 1 } });
    await expect(readWorkflowTrace(threads[0], changed, false)).rejects.toThrow(/ran another version of workflow/);
    await expect(readWorkflowTrace(threads[0], changed, true)).resolves.toMatchObject({ dir: threads[0] });
  });

  it("a subworkflow's run holds its own workflow whole, and the branches of a fork inside it name that one", async () => {
    const def = WorkflowDefinition.create({
      name: 'outer',
      nodes: [
        { kind: 'start', id: 's' },
        { kind: 'subworkflow', id: 'sub', inline: fanOut('inner') },
        { kind: 'end', id: 'e' },
      ],
      edges: [
        { from: 's', to: 'sub' },
        { from: 'sub', to: 'e' },
      ],
    });
    const { threads } = await traced(def);
    expect(threads).toHaveLength(1);
    const sub = threads[0];
    const inner = manifestOf(sub).agent.config?.workflow as { name: string };
    expect(inner.name).toBe('inner');
    const branches = readdirSync(join(sub, 'threads')).map((t) => join(sub, 'threads', t));
    expect(branches).toHaveLength(2);
    for (const b of branches) {
      const m = manifestOf(b);
      expect(m.agent.config?.workflowRef).toEqual({ sha256: workflowSha256(inner) });
      expect(recordedWorkflowJson(m, b)).toEqual(inner);
    }
  });

  it('a branch folder moved with its parent folder is found through the folder that holds it', async () => {
    const def = WorkflowDefinition.create(fanOut());
    const { traceDir, threads } = await traced(def);
    const moved = join(mkdtempSync(join(dir, 'moved-')), 'run');
    renameSync(traceDir, moved);
    const branch = join(moved, 'threads', threads[0].split('/').at(-1)!);
    // its parent link names the old folder, which is gone
    expect(manifestOf(branch).parent?.path).toBe(traceDir);
    expect(recordedWorkflowJson(manifestOf(branch), branch)).toEqual(def.toJSON());
  });

  it('a branch copied alone, without its parent run, is an error naming the parent run and the hash', async () => {
    const def = WorkflowDefinition.create(fanOut());
    const { traceDir, threads } = await traced(def);
    const alone = join(mkdtempSync(join(dir, 'alone-')), 'branch');
    cpSync(threads[0], alone, { recursive: true });
    rmSync(traceDir, { recursive: true });
    const m = manifestOf(alone);
    const err = (() => {
      try {
        recordedWorkflowJson(m, alone);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(WorkflowError);
    expect((err as Error).message).toContain(`names its workflow by hash (sha256 ${def.sha256})`);
    expect((err as Error).message).toContain(`held by its parent run ${m.parent!.runId}, which is not there`);
    expect((err as Error).message).toContain(`${traceDir}: no manifest.json`);
  });

  it('a parent whose manifest records another workflow is an error naming both hashes, never that workflow', async () => {
    const def = WorkflowDefinition.create(fanOut());
    const { traceDir, threads } = await traced(def);
    const parent = manifestOf(traceDir);
    const edited = structuredClone(parent.agent.config!.workflow) as { nodes: Array<Record<string, unknown>> };
    edited.nodes[2].parameters = { text: 'changed' };
    writeFileSync(
      join(traceDir, 'manifest.json'),
      JSON.stringify({ ...parent, agent: { ...parent.agent, config: { ...parent.agent.config, workflow: edited } } }),
    );
    expect(() => recordedWorkflowJson(manifestOf(threads[0]), threads[0])).toThrow(
      `names its workflow by hash (sha256 ${def.sha256}), but its parent run ${parent.runId} (${traceDir}) records ` +
        `another workflow (sha256 ${workflowSha256(edited)})`,
    );
  });

  it('an old branch manifest holding its workflow whole is read as it is, without its parent', async () => {
    const def = WorkflowDefinition.create(fanOut());
    const { traceDir, threads } = await traced(def);
    const m = manifestOf(threads[0]);
    const { workflowRef: _ref, ...config } = m.agent.config!;
    const old = { ...m, agent: { ...m.agent, config: { workflow: def.toJSON(), ...config } } };
    writeFileSync(join(threads[0], 'manifest.json'), JSON.stringify(old, null, 2));
    rmSync(join(traceDir, 'manifest.json'));
    expect(recordedWorkflowJson(old, threads[0])).toEqual(def.toJSON());
    await expect(readTrace(threads[0])).resolves.toMatchObject({ manifest: { runId: m.runId } });
    await expect(readWorkflowTrace(threads[0], def, false)).resolves.toMatchObject({ dir: threads[0] });
  });

  it('a malformed reference is named', () => {
    const m = { agent: { name: 'WorkflowAgent', config: { workflowRef: { sha256: 'abc' } } } } as unknown as Manifest;
    expect(() => recordedWorkflowJson(m, '/nowhere')).toThrow(
      'manifest.json in /nowhere: agent.config.workflowRef: expected { sha256: <64 hex digits> }',
    );
  });
});

describe("resuming or forking a branch's own trace", () => {
  it('forks a branch at its node and stops at its join, as the branch did; a stop node not in the workflow is named', async () => {
    const def = WorkflowDefinition.create(fanOut());
    const { threads } = await traced(def);
    const branchA = threads.find((t) => manifestOf(t).agent.config?.entry === 'a')!;
    const r = await forkWorkflow(branchA, def, 'a', {
      model: new ScriptedModel([]),
      tools: [echo],
      trace: { dir: mkdtempSync(join(dir, 'fork-')) },
    });
    expect(r.status, r.reason).toBe('completed');
    expect(r.vars.ra).toBe('A');
    expect(manifestOf(r.traceDir!).agent.config?.stopAt).toBe('j');

    const tampered = mkdtempSync(join(dir, 'tampered-'));
    cpSync(branchA, tampered, { recursive: true });
    const m = manifestOf(tampered);
    (m.agent.config as Record<string, unknown>).stopAt = 'nowhere';
    (m.agent.config as Record<string, unknown>).workflow = def.toJSON();
    delete (m.agent.config as Record<string, unknown>).workflowRef;
    writeFileSync(join(tampered, 'manifest.json'), JSON.stringify(m));
    await expect(
      forkWorkflow(tampered, def, 'a', { model: new ScriptedModel([]), tools: [echo], trace: false }),
    ).rejects.toThrow(`stops its thread at "nowhere", which is not a node of workflow "fan-out"`);
  });
});

describe('workflowSha256', () => {
  it('hashes the canonical JSON: key order and a JSON round trip do not change it, another value does', () => {
    const reversed = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(reversed)
        : v !== null && typeof v === 'object'
          ? Object.fromEntries(
              Object.entries(v)
                .reverse()
                .map(([k, x]) => [k, reversed(x)]),
            )
          : v;
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.jsonValue(), (obj, other) => {
        const h = workflowSha256(obj);
        expect(workflowSha256(reversed(obj))).toBe(h);
        expect(workflowSha256(JSON.parse(JSON.stringify(obj)))).toBe(h);
        const key = '\u0000extra';
        expect(workflowSha256({ ...obj, [key]: other })).not.toBe(h);
      }),
    );
  });
});
