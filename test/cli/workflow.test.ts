import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { qitos, tempDir } from '../helpers/cli-harness.js';
import { readTrace } from '../../src/trace/index.js';
import { branchTraces } from '../../src/app/view/branch-traces.js';
import { viewData } from '../../src/app/view/view-data.js';

const EXAMPLE = resolve(__dirname, '../../examples/workflows/tool-pipeline.yaml');
const REPLIES = resolve(__dirname, '../../examples/workflows/tool-pipeline.replies.json');

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir()));
afterEach(() => cleanup());

describe('qitos workflow', () => {
  it('check says ok for the example, and names line and column of a problem (exit 2)', async () => {
    const ok = await qitos(['workflow', 'check', EXAMPLE], dir);
    expect([ok.code, ok.out]).toEqual([0, 'ok: tool-pipeline: 9 nodes, 6 edges\n']);
    const text = (await readFile(EXAMPLE, 'utf8')).replace('max: 10', 'max: 0');
    await writeFile(join(dir, 'bad.yaml'), text);
    const bad = await qitos(['workflow', 'check', 'bad.yaml', '--json'], dir);
    expect(bad.code).toBe(2);
    const line = text.split('\n').findIndex((l) => l.includes('max: 0')) + 1;
    expect(bad.err).toBe(
      `qitos: bad.yaml:${line}:10: node "rounds" (loop-start): max: Too small: expected number to be >0\n`,
    );
    expect(JSON.parse(bad.out)).toMatchObject({ ok: false, line, column: 10, node: 'rounds' });
    const missing = await qitos(['workflow', 'check', 'nope.yaml'], dir);
    expect([missing.code, missing.err]).toEqual([2, 'qitos: workflow file not found: nope.yaml\n']);
  });

  it('check refuses a subworkflow that includes itself through another file, naming the chain (exit 2)', async () => {
    const flow = (name: string, path: string) =>
      `name: ${name}\nnodes:\n  - { kind: start, id: s }\n  - { kind: subworkflow, id: ` +
      `into-${path.split('.')[0]}, path: ${path} }\n  - { kind: end, id: e }\nedges:\n  - { ` +
      `from: s, to: into-${path.split('.')[0]} }\n  - { from: into-${path.split('.')[0]}, to: e ` +
      `}\n`;
    await writeFile(join(dir, 'a.yaml'), flow('a', 'b.yaml'));
    await writeFile(join(dir, 'b.yaml'), flow('b', 'a.yaml'));
    const r = await qitos(['workflow', 'check', 'a.yaml', '--json'], dir);
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      'qitos: a.yaml:4:5: subworkflow "into-b" includes itself: a.yaml (node "into-b") -> ' +
        'b.yaml (node "into-a") -> a.yaml; a workflow that includes itself never ends\n',
    );
    expect(JSON.parse(r.out)).toMatchObject({ ok: false, line: 4, column: 5, node: 'into-b' });
  });

  it('run executes the example offline (loop, condition, LLM node on a scripted model) and writes a trace', async () => {
    const r = await qitos(
      ['workflow', 'run', EXAMPLE, '--var', 'n=7', '--model', `scripted:${REPLIES}`, '--json'],
      dir,
    );
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j).toMatchObject({
      status: 'completed',
      output: '7 doubled to 112: An even number a little past one hundred.',
      vars: { n: '7', value: 112 },
    });
    const manifest = JSON.parse(await readFile(join(j.traceDir, 'manifest.json'), 'utf8'));
    expect(manifest.agent.name).toBe('WorkflowAgent');
    expect(manifest.status).toBe('completed');
    const text = await qitos(['workflow', 'run', EXAMPLE, '--var', 'n=300', '--model', `scripted:${REPLIES}`], dir);
    expect(text.code).toBe(0);
    const inspect = await qitos(['inspect', j.traceDir], dir);
    expect(inspect.code).toBe(0);
    expect(inspect.out).toMatch(/^agent +WorkflowAgent$/m);
    const diff = await qitos(['diff', j.traceDir, /^trace: (.*)$/m.exec(text.out)![1]], dir);
    // The runs differ in their initial variables; a step's state diff records only what the step changed (not the
    // whole thread), and a node's recorded wall time is not a difference: step 2 is the first to act on the variable.
    expect(diff.out).toMatch(/the runs start from different states\nfirst difference: step 2, action args/);
    expect(text.out).toMatch(
      /^ok  judge \(condition\)\nok  huge \(end\)\ncompleted\nresult: 300 doubled past 500: 600\ntrace: /m,
    );
  });

  it('the engine: budget of a shared config does not cap a workflow; its own workflow: section does, and replay keeps it', async () => {
    await writeFile(join(dir, 'shared.yaml'), 'engine:\n  maxSteps: 2\n');
    const shared = await qitos(
      ['workflow', 'run', EXAMPLE, '-c', 'shared.yaml', '--var', 'n=7', '--model', `scripted:${REPLIES}`, '--json'],
      dir,
    );
    expect(shared.code, shared.err).toBe(0);
    expect(JSON.parse(shared.out)).toMatchObject({ status: 'completed', vars: { value: 112 } });
    await writeFile(join(dir, 'own.yaml'), 'engine:\n  maxSteps: 100\nworkflow:\n  maxSteps: 2\n');
    const own = await qitos(
      ['workflow', 'run', EXAMPLE, '-c', 'own.yaml', '--var', 'n=7', '--model', `scripted:${REPLIES}`, '--json'],
      dir,
    );
    const capped = JSON.parse(own.out);
    expect(capped).toMatchObject({ status: 'stopped', reason: 'budget_steps: step budget of 2 reached' });
    // replay runs under the budget the run had, so it stops where the run stopped
    const replay = await qitos(['replay', capped.traceDir, '--json'], dir);
    expect(JSON.parse(replay.out)).toMatchObject({ matched: true });
  });

  it('run refuses a workflow with LLM nodes and no model, and reports a failed node with exit 1', async () => {
    const noModel = await qitos(['workflow', 'run', EXAMPLE, '--var', 'n=7'], dir);
    expect([noModel.code, noModel.err]).toEqual([
      2,
      'qitos: --model is required: the workflow has LLM nodes (describe)\n',
    ]);
    const failing = await qitos(['workflow', 'run', EXAMPLE, '--var', 'n=oops', '--model', `scripted:${REPLIES}`], dir);
    expect(failing.code).toBe(1);
    expect(failing.out).toMatch(/^failed: node "init" \(tool\) failed: cannot evaluate "oops"/m);
  });
});

describe('qitos workflow resume', () => {
  it('a run waiting at an interrupt goes on when resumed with the variable; the interrupt runs once', async () => {
    await writeFile(
      join(dir, 'approve.yaml'),
      `name: approve
nodes:
  - { id: s, kind: start }
  - { id: plan, kind: tool, toolName: calculate, parameters: { expression: "6 * 7" }, extract: metadata.value }
  - { id: ask, kind: interrupt, prompt: "Approve {{plan}}?", variable: approved }
  - { id: e, kind: end, result: "{{plan}} approved={{approved}}" }
edges:
  - { from: s, to: plan }
  - { from: plan, to: ask }
  - { from: ask, to: e }
`,
    );
    const waiting = await qitos(['workflow', 'run', 'approve.yaml', '--json'], dir);
    expect(waiting.code).toBe(1);
    const w = JSON.parse(waiting.out);
    expect(w).toMatchObject({
      status: 'waiting',
      reason: 'node "ask" asks: Approve 42? (set the variable "approved" and resume)',
    });
    const resumed = await qitos(
      ['workflow', 'resume', w.traceDir, 'approve.yaml', '--var', 'approved=yes', '--json'],
      dir,
    );
    expect(resumed.code).toBe(0);
    const r = JSON.parse(resumed.out);
    expect(r).toMatchObject({ status: 'completed', output: '42 approved=yes' });
    const manifest = JSON.parse(await readFile(join(r.traceDir, 'manifest.json'), 'utf8'));
    expect(manifest.parent).toMatchObject({ runId: w.runId, kind: 'fork' });
    const steps = (await readFile(join(r.traceDir, 'steps.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(steps.map((s) => s.decision.rationale)).toEqual(['interrupt node "ask"', 'end node "e"']);
    await writeFile(
      join(dir, 'approve.yaml'),
      (await readFile(join(dir, 'approve.yaml'), 'utf8')).replace('6 * 7', '6 * 8'),
    );
    const changed = await qitos(['workflow', 'resume', w.traceDir, 'approve.yaml', '--var', 'approved=yes'], dir);
    expect([changed.code, changed.err]).toEqual([
      2,
      `qitos: trace ${w.traceDir} ran another version of workflow "approve" (resuming with a ` +
        `changed workflow must be allowed explicitly)\n`,
    ]);
    const allowed = await qitos(
      ['workflow', 'resume', w.traceDir, 'approve.yaml', '--var', 'approved=ok', '--allow-changed'],
      dir,
    );
    expect(allowed.out).toMatch(/^result: 42 approved=ok$/m);
  });

  it('fork re-runs a recorded run from a node with changed variables', async () => {
    const run = JSON.parse(
      (await qitos(['workflow', 'run', EXAMPLE, '--var', 'n=7', '--model', `scripted:${REPLIES}`, '--json'], dir)).out,
    );
    const forked = await qitos(
      [
        'workflow',
        'fork',
        run.traceDir,
        EXAMPLE,
        '--at',
        'judge',
        '--var',
        'value:=1000',
        '--model',
        `scripted:${REPLIES}`,
        '--json',
      ],
      dir,
    );
    expect(forked.code).toBe(0);
    const f = JSON.parse(forked.out);
    expect(f).toMatchObject({ status: 'completed', output: '7 doubled past 500: 1000' });
    const lines = (await readFile(join(f.traceDir, 'steps.jsonl'), 'utf8')).trim().split('\n');
    expect(lines.map((l) => JSON.parse(l).decision.rationale)).toEqual(['condition node "judge"', 'end node "huge"']); // nothing before the fork point ran again
    const later = await qitos(
      ['workflow', 'fork', run.traceDir, EXAMPLE, '--at', 'double@4', '--model', `scripted:${REPLIES}`, '--json'],
      dir,
    );
    expect(JSON.parse(later.out)).toMatchObject({ status: 'completed', vars: { value: 112 } });
    const badJson = await qitos(
      ['workflow', 'fork', run.traceDir, EXAMPLE, '--at', 'judge', '--var', 'value:=oops'],
      dir,
    );
    expect(badJson.code).toBe(2);
    expect(badJson.err).toMatch(/value:= needs a JSON value: /);
    const bad = await qitos(['workflow', 'fork', run.traceDir, EXAMPLE, '--at', 'double@0'], dir);
    expect([bad.code, bad.err]).toEqual([2, 'qitos: --at: expected <node> or <node>@<visit>, got "double@0"\n']);
    const never = await qitos(
      ['workflow', 'fork', run.traceDir, EXAMPLE, '--at', 'huge', '--model', `scripted:${REPLIES}`],
      dir,
    );
    expect([never.code, never.err]).toEqual([2, `qitos: trace ${run.traceDir} never ran node "huge"\n`]);
  });

  it('the research-summarise example runs offline: two branches as child runs, joined, trimmed, summarised', async () => {
    const flow = resolve(__dirname, '../../examples/workflows/research-summarise.yaml');
    const replies = resolve(__dirname, '../../examples/workflows/research-summarise.replies.json');
    expect((await qitos(['workflow', 'check', flow], dir)).code).toBe(0);
    const r = await qitos(['workflow', 'run', flow, '--model', `scripted:${replies}`, '--json'], dir);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.status).toBe('completed');
    expect(j.vars.findings).toEqual({
      pros: { pros: '1. Trials report steady output. 2. Less burnout and turnover.' },
      cons: { cons: '1. Coverage gaps for customer-facing teams. 2. Compressed days can add stress.' },
    });
    expect(j.output).toMatch(/^Trials suggest a four-day week/);
    const manifests = await Promise.all(
      ['pros', 'cons'].map(async (b) =>
        JSON.parse(await readFile(join(j.traceDir, 'threads', `${j.runId}.s3.sides.${b}`, 'manifest.json'), 'utf8')),
      ),
    );
    expect(manifests.map((m) => [m.parent.runId, m.summary.stopReason])).toEqual([
      [j.runId, 'final'],
      [j.runId, 'final'],
    ]);
    // qitos view draws the branches' nodes from their own runs under threads/: done, once each, not "pending".
    const errs: string[] = [];
    const branches = await branchTraces({ err: (t) => void errs.push(t) }, j.traceDir);
    expect(branches).toHaveLength(2);
    const wf = viewData([await readTrace(j.traceDir)], new Map([[j.traceDir, branches]])).runs[0]!.workflow!;
    const node = (id: string) => wf.nodes.find((n) => n.id === id);
    expect([node('pros'), node('cons')]).toEqual([
      expect.objectContaining({ status: 'done', visits: 1 }),
      expect.objectContaining({ status: 'done', visits: 1 }),
    ]);
    expect(node('pros')!.tokens).toBeGreaterThan(0);
    expect(wf.nodes.every((n) => n.status === 'done')).toBe(true);
    expect(errs).toEqual([]);
  });
  it(
    'the plan-and-execute example runs offline: a planner node, then an executor with a tool, ' +
      'one plan step per loop round until DONE',
    async () => {
      const flow = resolve(__dirname, '../../examples/workflows/plan-and-execute.yaml');
      const replies = resolve(__dirname, '../../examples/workflows/plan-and-execute.replies.json');
      expect((await qitos(['workflow', 'check', flow], dir)).code).toBe(0);
      const r = await qitos(['workflow', 'run', flow, '--model', `scripted:${replies}`, '--json'], dir);
      expect(r.code, r.err).toBe(0);
      const j = JSON.parse(r.out);
      expect(j).toMatchObject({ status: 'completed', output: 'DONE. Step 3: the total is 40.50.' });
      expect(j.vars.plan).toMatch(/^1\. Multiply 3 by 12\.50\./);
      const steps = (await readFile(join(j.traceDir, 'steps.jsonl'), 'utf8'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      const outputs = steps.flatMap((s) =>
        s.results.map((x: { name: string; output: unknown }) => `${x.name}:${String(x.output)}`),
      );
      expect(outputs).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^calculate:.*37\.5/),
          expect.stringMatching(/^calculate:.*40\.5/),
        ]),
      );
    },
  );
});

describe('qitos replay of a workflow run', () => {
  const flow = resolve(__dirname, '../../examples/workflows/research-summarise.yaml');
  const replies = resolve(__dirname, '../../examples/workflows/research-summarise.replies.json');

  it("rebuilds the recorded workflow: every decision matches, the fork's outcome is served, each branch replays on its own", async () => {
    const r = await qitos(['workflow', 'run', flow, '--model', `scripted:${replies}`, '--json'], dir);
    expect(r.code, r.err).toBe(0);
    const j = JSON.parse(r.out);
    const replay = await qitos(['replay', j.traceDir, '--json'], dir);
    expect(replay.code, replay.err).toBe(0);
    const out = JSON.parse(replay.out);
    expect(out).toMatchObject({
      matched: true,
      decisions: { recorded: j.steps, replayed: j.steps, matched: j.steps },
      drifts: [],
      replay: { stopReason: 'final' },
    });
    const manifest = JSON.parse(await readFile(join(out.replay.traceDir, 'manifest.json'), 'utf8'));
    expect(manifest.parent).toMatchObject({ runId: j.runId, kind: 'replay' });
    expect(manifest.summary.finalResult).toBe(j.output);
    // the run's own LLM nodes' calls (frame, summary) were served from the recording; the recorded run's usage
    // also counts its two branches' calls, which the replay does not make
    expect([manifest.summary.usage.modelCalls, j.usage.modelCalls]).toEqual([2, 4]);
    // the branches were not run again: the replay has no threads of its own
    await expect(readFile(join(out.replay.traceDir, 'threads'), 'utf8')).rejects.toThrow(/ENOENT/);
    for (const b of ['pros', 'cons']) {
      const branch = await qitos(['replay', join(j.traceDir, 'threads', `${j.runId}.s3.sides.${b}`), '--json'], dir);
      expect(branch.code, branch.err).toBe(0);
      expect(JSON.parse(branch.out)).toMatchObject({ matched: true, drifts: [] });
    }
  });

  it('a branch names the workflow by hash: it replays and is drawn through its parent; alone it is refused', async () => {
    const r = await qitos(['workflow', 'run', flow, '--model', `scripted:${replies}`, '--json'], dir);
    expect(r.code, r.err).toBe(0);
    const j = JSON.parse(r.out);
    const branch = join(j.traceDir, 'threads', `${j.runId}.s3.sides.pros`);
    const m = JSON.parse(await readFile(join(branch, 'manifest.json'), 'utf8'));
    const parent = JSON.parse(await readFile(join(j.traceDir, 'manifest.json'), 'utf8'));
    const sha256 = m.agent.config.workflowRef.sha256;
    expect(sha256).toMatch(/^[0-9a-f]{64}$/);
    expect([m.agent.config.workflow, parent.agent.config.workflow.name]).toEqual([undefined, 'research-summarise']);
    // the viewer draws a branch's graph from its parent's manifest
    const seen = viewData([await readTrace(branch)], new Map()).runs[0]!;
    expect(seen.workflow?.nodes.find((n) => n.id === 'pros')).toMatchObject({ status: 'done' });
    // moved alone: its parent run is not there, so neither replay nor the viewer has a workflow to use
    const alone = join(dir, 'alone');
    await cp(branch, alone, { recursive: true });
    await rm(j.traceDir, { recursive: true });
    const replay = await qitos(['replay', alone, '--json'], dir);
    expect(replay.code).toBe(2);
    expect(replay.err).toContain(
      `qitos: trace ${alone} names its workflow by hash (sha256 ${sha256}), held by its parent run ${j.runId}, ` +
        `which is not there (${j.traceDir}: no manifest.json)`,
    );
    const lone = viewData([await readTrace(alone)], new Map()).runs[0]!;
    expect(lone.workflow).toBeNull();
    expect(lone.warnings.join('\n')).toContain(`the workflow's graph is not shown: trace ${alone} names its workflow`);
    // a branch written before references (its workflow whole in its manifest) still replays on its own
    const { workflowRef: _ref, ...config } = m.agent.config;
    const old = { ...m, agent: { ...m.agent, config: { workflow: parent.agent.config.workflow, ...config } } };
    delete old.signature;
    await writeFile(join(alone, 'manifest.json'), JSON.stringify(old, null, 2));
    const oldReplay = await qitos(['replay', alone, '--json'], dir);
    expect(oldReplay.code, oldReplay.err).toBe(0);
    expect(JSON.parse(oldReplay.out)).toMatchObject({ matched: true, drifts: [] });
  });

  it("the parent's signature covers a branch's workflow reference, whose hash covers the parent's workflow", async () => {
    const r = await qitos(['workflow', 'run', flow, '--model', `scripted:${replies}`, '--json'], dir);
    const j = JSON.parse(r.out);
    const thread = `${j.runId}.s3.sides.pros`;
    const branch = join(j.traceDir, 'threads', thread);
    expect((await qitos(['replay', j.traceDir, '--live-tools', '--json'], dir)).err).not.toMatch(/refusing/);
    // the parent's workflow edited: the branch's hash no longer matches it
    const parentPath = join(j.traceDir, 'manifest.json');
    const parentText = await readFile(parentPath, 'utf8');
    await writeFile(parentPath, parentText.replace('You are a careful analyst.', 'You are a careless analyst.'));
    const edited = await qitos(['replay', branch, '--json'], dir);
    expect(edited.code).toBe(2);
    expect(edited.err).toMatch(
      new RegExp(
        `^qitos: trace .* names its workflow by hash \\(sha256 [0-9a-f]{64}\\), but its parent run ${j.runId} ` +
          `\\(.*\\) records another workflow \\(sha256 [0-9a-f]{64}\\)`,
      ),
    );
    await writeFile(parentPath, parentText);
    // the branch's reference edited: the parent's signature covers the branch's manifest
    const branchPath = join(branch, 'manifest.json');
    const m = JSON.parse(await readFile(branchPath, 'utf8'));
    m.agent.config.workflowRef.sha256 = '0'.repeat(64);
    await writeFile(branchPath, JSON.stringify(m, null, 2));
    const live = await qitos(['replay', j.traceDir, '--live-tools'], dir);
    expect(live.code).toBe(2);
    expect(live.err).toContain(`threads/${thread}/manifest.json changed after it was signed`);
    expect((await qitos(['replay', branch], dir)).err).toContain(
      `names its workflow by hash (sha256 ${'0'.repeat(64)})`,
    );
  });

  it('a signed workflow trace covers its branch threads: an edit in threads/ makes it from elsewhere, naming the file', async () => {
    const r = await qitos(['workflow', 'run', flow, '--model', `scripted:${replies}`, '--json'], dir);
    const j = JSON.parse(r.out);
    expect((await qitos(['replay', j.traceDir, '--live-tools', '--json'], dir)).err).not.toMatch(/refusing/);
    const thread = `${j.runId}.s3.sides.pros`;
    const stepsPath = join(j.traceDir, 'threads', thread, 'steps.jsonl');
    await writeFile(stepsPath, (await readFile(stepsPath, 'utf8')).replace('steady output', 'steady outputs'));
    const live = await qitos(['replay', j.traceDir, '--live-tools'], dir);
    expect(live.code).toBe(2);
    expect(live.err).toMatch(
      new RegExp(
        `^qitos: refusing to use what trace .* names, because its files do not match what its ` +
          `signature covers: threads/${thread.replace(/\./g, '\\.')}/steps\\.jsonl changed after it ` +
          `was signed: --live-tools`,
      ),
    );
  });

  it('--live-tools runs the tool nodes again (built-in tools; --tools for a module of them); --agent does not apply', async () => {
    const plan = resolve(__dirname, '../../examples/workflows/plan-and-execute.yaml');
    const planReplies = resolve(__dirname, '../../examples/workflows/plan-and-execute.replies.json');
    const r = await qitos(['workflow', 'run', plan, '--model', `scripted:${planReplies}`, '--json'], dir);
    const j = JSON.parse(r.out);
    const live = await qitos(['replay', j.traceDir, '--live-tools', '--json'], dir);
    expect(live.code, live.err).toBe(0);
    const out = JSON.parse(live.out);
    expect(out.matched).toBe(true);
    const steps = (await readFile(join(out.replay.traceDir, 'steps.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(
      steps.flatMap((s) => s.results.map((x: { name: string; output: string }) => `${x.name}:${x.output}`)),
    ).toEqual(expect.arrayContaining([expect.stringMatching(/^calculate:.*40\.5/)]));
    const agent = await qitos(['replay', j.traceDir, '--agent', 'x.ts'], dir);
    expect([agent.code, agent.err]).toEqual([
      2,
      'qitos: --agent: a workflow run is rebuilt from the workflow its trace records; replay it without --agent\n',
    ]);
    const fork = await qitos(['fork', j.traceDir, '--at', '2'], dir);
    expect([fork.code, fork.err]).toEqual([
      2,
      `qitos: trace ${j.traceDir} is a workflow run: fork it from a node with \`qitos workflow ` +
        `fork ${j.traceDir} ${plan} --at <node>\` (its tools and models come from you, not the ` +
        `trace)\n`,
    ]);
  });

  it(
    'a workflow run from elsewhere replays with no flag: its workflow is data and its tools ' +
      'never run; --live-tools needs --trust-trace',
    async () => {
      const plan = resolve(__dirname, '../../examples/workflows/plan-and-execute.yaml');
      const planReplies = resolve(__dirname, '../../examples/workflows/plan-and-execute.replies.json');
      const r = await qitos(['workflow', 'run', plan, '--model', `scripted:${planReplies}`, '--json'], dir, {
        XDG_CONFIG_HOME: join(dir, 'elsewhere-config'),
      });
      const j = JSON.parse(r.out);
      const replay = await qitos(['replay', j.traceDir, '--json'], dir);
      expect(replay.code, replay.err).toBe(0);
      expect(JSON.parse(replay.out).matched).toBe(true);
      const live = await qitos(['replay', j.traceDir, '--live-tools'], dir);
      expect(live.code).toBe(2);
      expect(live.err).toMatch(
        /^qitos: refusing to use what trace .* names, because .*: --live-tools \(the recorded tool calls: run again on this machine\); pass --trust-trace to use them\n$/,
      );
    },
  );

  it('a node with stream: true prints its reply as it arrives', async () => {
    await writeFile(
      join(dir, 'streamed.yaml'),
      `name: streamed
nodes:
  - { id: start, kind: start }
  - { id: ask, kind: llm, userPrompt: "Say hello.", stream: true }
  - { id: end, kind: end, result: "{{ask}}" }
edges:
  - { from: start, to: ask }
  - { from: ask, to: end }
`,
    );
    await writeFile(join(dir, 'hello.json'), JSON.stringify(['Hello there.']));
    const r = await qitos(['workflow', 'run', 'streamed.yaml', '--model', 'scripted:hello.json'], dir);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^ask> Hello there\.\nok  start \(start\)\nok  ask \(llm\)/);
  });
});
