import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ApprovalQueue,
  Engine,
  autoApprove,
  decide,
  type ApprovalRequest,
  type Decision,
  type HookEvent,
  type PermissionConfig,
  type Policy,
  type State,
} from '../../src/index.js';
import { HostEnv } from '../../src/envs/index.js';
import { bashTool, readTool, writeTool } from '../../src/kit/tools/index.js';
import { readTrace } from '../../src/trace/index.js';
import { ScriptAgent, tempDir } from '../helpers/kernel-fixtures.js';

const sh = (command: string) => decide.call('bash', { command });

async function workspace() {
  const root = await tempDir('qitos-perm-');
  writeFileSync(join(root, 'keep.txt'), 'precious');
  return root;
}

function engine(
  root: string,
  decisions: Decision[],
  permission: PermissionConfig,
  extra: Partial<ConstructorParameters<typeof Engine>[0]> = {},
  traceDir?: string,
) {
  const agent = new ScriptAgent([...decisions, decide.final('done')], { tools: [bashTool(), readTool(), writeTool()] });
  return new Engine({
    agent,
    env: new HostEnv({ root }),
    permission,
    trace: traceDir ? { dir: traceDir } : false,
    ...extra,
  });
}

describe('permission rules in ACT', () => {
  it(
    'deny refuses the call before the tool runs: the model sees an error naming the rule; the ' +
      'step record and the trace hold the decision',
    async () => {
      const root = await workspace();
      const traces = await tempDir();
      const events: HookEvent[] = [];
      const r = await engine(
        root,
        [sh('rm -f keep.txt')],
        { bash: { '*': 'allow', 'rm *': 'deny' } },
        { hooks: [(e) => void events.push(e)] },
        traces,
      ).run('t');
      expect(existsSync(join(root, 'keep.txt'))).toBe(true);
      const trace = await readTrace(r.traceDir!);
      const res = trace.steps[0].results[0];
      expect(res.status).toBe('error');
      expect(res.error).toBe(
        'Permission denied: this call was refused by the permission rules (rule bash "rm *": ' +
          'deny). Do not retry it; use another way or ask the user.',
      );
      expect(res.permission).toMatchObject({
        key: 'bash',
        subjects: ['rm -f keep.txt'],
        action: 'deny',
        outcome: 'deny',
        decidedBy: 'rule',
        rule: { key: 'bash', pattern: 'rm *', action: 'deny' },
      });
      expect(typeof res.permission!.at).toBe('number');
      expect(
        trace.events.some(
          (e) => e.type === 'permission' && (e.data as { record: { outcome: string } }).record.outcome === 'deny',
        ),
      ).toBe(true);
      expect(trace.manifest.permission).toEqual([
        { key: 'bash', pattern: '*', action: 'allow' },
        { key: 'bash', pattern: 'rm *', action: 'deny' },
      ]);
      expect(events.find((e) => e.type === 'permission')).toMatchObject({
        tool: 'bash',
        record: { decidedBy: 'rule' },
      });
    },
  );

  it('a chained command is judged by every segment: "echo ok && rm" is refused by the rm rule', async () => {
    const root = await workspace();
    const r = await engine(
      root,
      [sh('echo ok && rm -f keep.txt')],
      { bash: { '*': 'allow', 'rm *': 'deny' } },
      {},
      await tempDir(),
    ).run('t');
    expect((await readTrace(r.traceDir!)).steps[0].results[0].permission).toMatchObject({
      subjects: ['echo ok', 'rm -f keep.txt'],
      outcome: 'deny',
    });
    expect(existsSync(join(root, 'keep.txt'))).toBe(true);
  });

  it('allow runs the tool and records the rule; without rules nothing is recorded', async () => {
    const root = await workspace();
    const seen: unknown[] = [];
    const agent = new ScriptAgent([sh('echo hi'), decide.final('done')], { tools: [bashTool()] });
    const reduce = (p: unknown) => seen.push(p);
    const policy: Policy<State> = { name: 'spy', reduce: (ctx) => void reduce(ctx.results?.[0]?.permission) };
    await new Engine({
      agent,
      env: new HostEnv({ root }),
      permission: { bash: { 'echo *': 'allow' } },
      policies: [policy],
      trace: false,
    }).run('t');
    expect(seen[0]).toMatchObject({ outcome: 'allow', decidedBy: 'rule', rule: { pattern: 'echo *' } });
    seen.length = 0;
    await new Engine({
      agent: new ScriptAgent([sh('echo hi'), decide.final('done')], { tools: [bashTool()] }),
      env: new HostEnv({ root }),
      policies: [policy],
      trace: false,
    }).run('t');
    expect(seen[0]).toBeUndefined();
  });

  it(
    'edit only under src/: write outside it is refused, inside it runs; paths outside the ' +
      'workspace fall under external_directory',
    async () => {
      const root = await workspace();
      const outside = await tempDir('qitos-outside-');
      writeFileSync(join(outside, 'secret.txt'), 's');
      const rules: PermissionConfig = {
        '*': 'allow',
        write: { '*': 'deny', 'src/*': 'allow' },
        external_directory: 'deny',
      };
      const calls = [
        decide.call('write', { path: 'src/a.txt', content: 'a' }),
        decide.call('write', { path: 'b.txt', content: 'b' }),
        decide.call('read', { path: join(outside, 'secret.txt') }),
      ];
      const r = await engine(root, calls, rules, {}, await tempDir()).run('t');
      const steps = (await readTrace(r.traceDir!)).steps;
      expect(steps[0].results[0].status).toBe('success');
      expect(steps[1].results[0].permission).toMatchObject({
        outcome: 'deny',
        rule: { key: 'write', pattern: '*' },
        subjects: ['b.txt'],
      });
      expect(steps[2].results[0].permission).toMatchObject({
        key: 'external_directory',
        outcome: 'deny',
        subjects: [join(outside, 'secret.txt')],
      });
      expect(existsSync(join(root, 'b.txt'))).toBe(false);
    },
  );

  it('a path is judged where it lands: a symlink in an allowed folder to a denied file is refused', async () => {
    const root = await workspace();
    mkdirSync(join(root, 'src'));
    writeFileSync(join(root, 'secret.txt'), 'secret');
    symlinkSync('../secret.txt', join(root, 'src', 'link'));
    symlinkSync('../later.txt', join(root, 'src', 'dangling'));
    const rules: PermissionConfig = { '*': 'allow', write: { '*': 'deny', 'src/*': 'allow' } };
    const calls = [
      decide.call('write', { path: 'src/link', content: 'overwritten' }),
      decide.call('write', { path: 'src/dangling', content: 'created' }),
      decide.call('write', { path: 'src/plain.txt', content: 'ok' }),
    ];
    const r = await engine(root, calls, rules, {}, await tempDir()).run('t');
    const steps = (await readTrace(r.traceDir!)).steps;
    expect(steps[0].results[0].permission).toMatchObject({
      outcome: 'deny',
      subjects: ['src/link', 'secret.txt'],
      rule: { key: 'write', pattern: '*' },
    });
    expect(steps[1].results[0].permission).toMatchObject({ outcome: 'deny', subjects: ['src/dangling', 'later.txt'] });
    expect(steps[2].results[0].status).toBe('success');
    expect(readFileSync(join(root, 'secret.txt'), 'utf8')).toBe('secret');
    expect(existsSync(join(root, 'later.txt'))).toBe(false);
  });

  it('a symlink that leads out of the workspace is judged as external_directory', async () => {
    const root = await workspace();
    const outside = await tempDir('qitos-outside-');
    writeFileSync(join(outside, 'secret.txt'), 's');
    symlinkSync(join(outside, 'secret.txt'), join(root, 'out'));
    const r = await engine(
      root,
      [decide.call('read', { path: 'out' })],
      { read: 'allow', external_directory: 'deny' },
      {},
      await tempDir(),
    ).run('t');
    const steps = (await readTrace(r.traceDir!)).steps;
    expect(steps[0].results[0].permission).toMatchObject({
      key: 'external_directory',
      outcome: 'deny',
      subjects: [join(outside, 'secret.txt')],
    });
  });

  it('edit: deny covers every tool that changes files (write too), as in opencode; a later write rule wins', async () => {
    const root = await workspace();
    const r = await engine(
      root,
      [decide.call('write', { path: 'a.txt', content: 'a' })],
      { '*': 'allow', edit: 'deny' },
      {},
      await tempDir(),
    ).run('t');
    const steps = (await readTrace(r.traceDir!)).steps;
    expect(steps[0].results[0].permission).toMatchObject({
      key: 'write',
      outcome: 'deny',
      rule: { key: 'edit', pattern: '*', action: 'deny' },
    });
    expect(existsSync(join(root, 'a.txt'))).toBe(false);
    const later = await engine(root, [decide.call('write', { path: 'a.txt', content: 'a' })], {
      edit: 'deny',
      write: { 'a.txt': 'allow' },
    }).run('t');
    expect(later.stopReason).toBe('final');
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('a');
  });
});

describe('asking', () => {
  it(
    'onApproval answers once, always (later calls of the same input are not asked) and reject ' +
      '(its message reaches the model)',
    async () => {
      const root = await workspace();
      const asked: ApprovalRequest[] = [];
      const answers = ['once', 'always', 'reject'] as const;
      const onApproval = (req: ApprovalRequest) => {
        asked.push(req);
        const decision = answers[asked.length - 1];
        return { decision, by: 'test', ...(decision === 'reject' ? { message: 'not on a Friday' } : {}) };
      };
      const calls = [sh('touch a'), sh('touch b'), sh('touch b'), sh('touch c')];
      const r = await engine(root, calls, { bash: 'ask' }, { onApproval }, await tempDir()).run('t');
      const steps = (await readTrace(r.traceDir!)).steps;
      expect(asked.map((a) => a.subjects)).toEqual([['touch a'], ['touch b'], ['touch c']]);
      expect(asked[0]).toMatchObject({
        key: 'bash',
        tool: 'bash',
        args: { command: 'touch a' },
        rule: { key: 'bash', pattern: '*', action: 'ask' },
      });
      expect(steps.slice(0, 4).map((s) => s.results[0].permission?.decidedBy)).toEqual([
        'user',
        'user',
        'grant',
        'user',
      ]);
      expect(steps[0].results[0].permission).toMatchObject({ approver: 'test', outcome: 'allow' });
      expect(steps[3].results[0].error).toMatch(/refused: the user rejected it\. Message: not on a Friday/);
      expect(existsSync(join(root, 'c'))).toBe(false);
      expect(existsSync(join(root, 'b'))).toBe(true);
    },
  );

  it('with no approver an ask is refused by the documented default; autoApprove approves it; deny still wins over --auto', async () => {
    const root = await workspace();
    const rules: PermissionConfig = { bash: { '*': 'ask', 'rm *': 'deny' } };
    const r1 = await engine(root, [sh('touch x')], rules, {}, await tempDir()).run('t');
    const s1 = (await readTrace(r1.traceDir!)).steps;
    expect(s1[0].results[0].permission).toMatchObject({ outcome: 'deny', decidedBy: 'default' });
    expect(s1[0].results[0].error).toMatch(/no one could answer here/);
    const r2 = await engine(
      root,
      [sh('touch x'), sh('rm -f keep.txt')],
      rules,
      { onApproval: autoApprove },
      await tempDir(),
    ).run('t');
    const s2 = (await readTrace(r2.traceDir!)).steps;
    expect(s2[0].results[0].permission).toMatchObject({ outcome: 'allow', decidedBy: 'auto', approver: 'auto' });
    expect(s2[1].results[0].permission).toMatchObject({ outcome: 'deny', decidedBy: 'rule' });
    expect(existsSync(join(root, 'x'))).toBe(true);
    expect(existsSync(join(root, 'keep.txt'))).toBe(true);
  });

  it('an unanswered ask times out and is refused; the approver is told to stop waiting', async () => {
    const root = await workspace();
    const queue = new ApprovalQueue();
    let stopped = false;
    queue.onAsk(() => undefined);
    const onApproval = (req: ApprovalRequest, signal: AbortSignal) => {
      signal.addEventListener('abort', () => (stopped = true));
      return queue.approver(req, signal);
    };
    const r = await engine(
      root,
      [sh('touch late')],
      { bash: 'ask' },
      { onApproval, approvalTimeoutMs: 60 },
      await tempDir(),
    ).run('t');
    const res = (await readTrace(r.traceDir!)).steps[0].results[0];
    expect(res.permission).toMatchObject({ outcome: 'deny', decidedBy: 'timeout' });
    expect(res.error).toMatch(/no answer came in time/);
    expect(stopped).toBe(true);
    expect(queue.pending()).toEqual([]);
    expect(existsSync(join(root, 'late'))).toBe(false);
  });

  it('aborting the run while an ask waits rejects it, ends the run interrupted and leaves nothing waiting', async () => {
    const root = await workspace();
    const queue = new ApprovalQueue();
    const controller = new AbortController();
    queue.onAsk(() => setTimeout(() => controller.abort(), 20));
    const r = await engine(
      root,
      [sh('touch never')],
      { bash: 'ask' },
      { onApproval: queue.approver },
      await tempDir(),
    ).run('t', { signal: controller.signal });
    expect(r.stopReason).toBe('interrupted');
    expect(queue.pending()).toEqual([]);
    expect(existsSync(join(root, 'never'))).toBe(false);
    const trace = await readTrace(r.traceDir!);
    const answered = trace.events.find(
      (e) => e.type === 'approval' && (e.data as { status: string }).status === 'answered',
    );
    expect(answered?.data).toMatchObject({ reply: { decision: 'reject', by: 'abort' } });
  });

  it('Engine.stream yields the pending approval; answering it through an ApprovalQueue lets the call run', async () => {
    const root = await workspace();
    const queue = new ApprovalQueue('ui');
    const e = engine(root, [sh('touch streamed')], { bash: 'ask' }, { onApproval: queue.approver });
    const seen: string[] = [];
    for await (const ev of e.stream('t')) {
      if (ev.type === 'approval') {
        seen.push(ev.status);
        if (ev.status === 'pending') {
          expect(queue.pending().map((p) => p.id)).toEqual([ev.request.id]);
          expect(queue.answer(ev.request.id, { decision: 'once' })).toBe(true);
          expect(queue.answer(ev.request.id, { decision: 'once' })).toBe(false);
        }
      }
      if (ev.type === 'result') expect(ev.result.stopReason).toBe('final');
    }
    expect(seen).toEqual(['pending', 'answered']);
    expect(existsSync(join(root, 'streamed'))).toBe(true);
  });

  it('an approver that throws or answers nonsense refuses the call with a message saying so', async () => {
    const root = await workspace();
    const r = await engine(
      root,
      [sh('touch t1'), sh('touch t2')],
      { bash: 'ask' },
      {
        onApproval: (req) => {
          if (req.subjects[0] === 'touch t1') throw new Error('ui crashed');
          return { decision: 'maybe' } as never;
        },
      },
      await tempDir(),
    ).run('t');
    const steps = (await readTrace(r.traceDir!)).steps;
    expect(steps[0].results[0].permission).toMatchObject({
      decidedBy: 'default',
      message: 'the approver failed: ui crashed',
    });
    expect(steps[1].results[0].permission?.message).toMatch(/the approver's answer is not valid/);
  });

  it('doom_loop: ask lets a human keep the run going; without the key the policy stops it as before', async () => {
    const root = await workspace();
    const stopOnce: Policy<State> = {
      name: 'doom_loop',
      checkStop: (ctx) => (ctx.state.step === 1 ? { reason: 'doom_loop', message: 'same call 3 times' } : undefined),
    };
    const asked: ApprovalRequest[] = [];
    const onApproval = (req: ApprovalRequest) => (asked.push(req), { decision: 'once' as const });
    const go = await engine(
      root,
      [sh('echo 1')],
      { '*': 'allow', doom_loop: 'ask' },
      { policies: [stopOnce], onApproval },
    ).run('t');
    expect(go.stopReason).toBe('final');
    expect(asked[0]).toMatchObject({ key: 'doom_loop', title: 'the run repeats itself: same call 3 times' });
    // `*` stands for tools only: it does not turn the doom-loop stop off.
    const stop = await engine(root, [sh('echo 1')], { '*': 'allow' }, { policies: [stopOnce], onApproval }).run('t');
    expect(stop.stopReason).toBe('doom_loop');
  });

  it('invalid rules are refused when the engine is made, naming the key', () => {
    expect(() => engine('/tmp', [], { bash: { 'rm *': 'nope' } } as never)).toThrow(
      'EngineOptions.permission.bash."rm *": expected "allow", "ask" or "deny", got "nope"',
    );
  });
});

describe('a tool whose permission input fails', () => {
  it('is refused (fail closed), the record saying why', async () => {
    const { z } = await import('zod');
    const { defineTool } = await import('../../src/index.js');
    const odd = defineTool({
      id: 'odd',
      description: '',
      parameters: z.object({}),
      permission: () => {
        throw new Error('no target');
      },
      execute: () => 'ran',
    });
    const agent = new ScriptAgent([decide.call('odd'), decide.final('done')], { tools: [odd] });
    const seen: unknown[] = [];
    await new Engine({
      agent,
      permission: { '*': 'allow' },
      trace: false,
      hooks: [(e) => void (e.type === 'permission' && seen.push(e.record))],
    }).run('t');
    expect(seen[0]).toMatchObject({
      outcome: 'deny',
      subjects: ['(the permission input of odd failed: no target)'],
      rule: null,
    });
  });
});
