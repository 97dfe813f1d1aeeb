import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ApprovalRequest, Manifest } from '../../../src/core/index.js';
import { ScriptedModel } from '../../../src/kit/testing/index.js';
import { WorkflowDefinition, runWorkflow, type RunWorkflowOptions } from '../../../src/kit/workflow/index.js';
import { echo, fanOutWorkflow } from '../../helpers/workflow-fixtures.js';

// A fork's branches and a subworkflow are child runs: they are held to the workflow run's permission rules and ask
// its approver, as its own nodes are (they ran with no rules at all before).
const dir = mkdtempSync(join(tmpdir(), 'qitos-wf-perm-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** start -> fork -> a: echo A, b: interrupt for `colour` -> join -> end. */
const fanOut = WorkflowDefinition.create(
  fanOutWorkflow({
    b: { kind: 'interrupt', id: 'b', prompt: 'Colour?', variable: 'colour' },
    result: '{{both.a.ra}} {{both.b.colour}}',
  }),
);
const run = (o: Partial<RunWorkflowOptions>) =>
  runWorkflow(fanOut, { model: new ScriptedModel([]), tools: [echo], trace: false, ...o });

describe("a fork's branches are held to the workflow run's permission", () => {
  it('a tool a rule denies is refused in a branch, naming the rule; the fork fails', async () => {
    const r = await run({ permission: { echo: 'deny' }, onApproval: () => ({ decision: 'once', message: 'red' }) });
    expect(r.status).toBe('failed');
    expect(r.reason).toContain(
      'branch "a" failed after 1 attempt: node "a" (tool) failed: Permission denied: this call was refused by the ' +
        'permission rules (rule echo "*": deny)',
    );
  });

  it("a branch's ask and its interrupt node reach the run's approver, whose answers they use", async () => {
    const seen: ApprovalRequest[] = [];
    const r = await run({
      permission: { echo: 'ask' },
      onApproval: (request) => {
        seen.push(request);
        return request.key === 'interrupt' ? { decision: 'once', message: 'teal' } : { decision: 'once' };
      },
    });
    expect(r.status).toBe('completed');
    expect(r.output).toBe('A teal');
    expect(seen.map((q) => [q.key, q.tool ?? null, q.runId.endsWith('.fan.a') || q.runId.endsWith('.fan.b')])).toEqual(
      expect.arrayContaining([
        ['echo', 'echo', true],
        ['interrupt', null, true],
      ]),
    );
    expect(seen).toHaveLength(2);
  });

  it("a branch's manifest records the rules it ran under", async () => {
    const r = await runWorkflow(fanOut, {
      model: new ScriptedModel([]),
      tools: [echo],
      trace: { dir },
      permission: { echo: 'allow', bash: 'deny' },
      onApproval: () => ({ decision: 'once', message: 'red' }),
    });
    expect(r.status).toBe('completed');
    const parentPermission = (JSON.parse(readFileSync(join(r.traceDir!, 'manifest.json'), 'utf8')) as Manifest)
      .permission;
    expect(JSON.stringify(parentPermission)).toContain('bash');
    const threads = join(r.traceDir!, 'threads');
    const manifests = readdirSync(threads).map(
      (t) => JSON.parse(readFileSync(join(threads, t, 'manifest.json'), 'utf8')) as Manifest,
    );
    expect(manifests).toHaveLength(2);
    for (const m of manifests) expect(m.permission).toEqual(parentPermission);
  });
});
