import { isAbsolute, posix, relative, resolve, sep } from 'node:path';
import type {
  ActContext,
  Action,
  AnyTool,
  ApprovalReply,
  ApprovalRequest,
  Approver,
  FileOps,
  HookEvent,
  HumanAsk,
  MatchSubject,
  PermissionAction,
  PermissionVerdict,
  ProcessOps,
  PermissionRecord,
  PermissionRule,
  PermissionSubject,
  ShellCommand,
} from '../core/index.js';
import {
  ApprovalReply as ApprovalReplySchema,
  DOOM_LOOP,
  EXTERNAL_DIRECTORY,
  ANY_COMMAND,
  PermissionRules,
  errorMessage,
  newId,
} from '../core/index.js';

/** Default wait for an answer to an ask (5 minutes); then the call is refused. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 300_000;

const RANK: Record<PermissionAction, number> = { allow: 0, ask: 1, deny: 2 };

/** What a run's gate is built from. */
export interface PermissionGateOptions {
  runId: string;
  rules: PermissionRules;
  approver: Approver | undefined;
  timeoutMs: number;
  /**
   * The workspace root that decides which paths are external (none: every path is taken as given); read at each call
   * (setup may make it).
   */
  root(): string | undefined;
  signal: AbortSignal;
  step(): number;
  emit(event: HookEvent): void | Promise<void>;
  /** The run's tools by id (for `judge` of a call the executor did not resolve: a replay's). */
  tool(name: string): AnyTool | undefined;
  /**
   * The commands a command line runs, as the env's shell reads it (its process ops' `commands`), or undefined when
   * the env does not say: then a command is judged with the most careful rule that could apply.
   */
  commands?(line: string): Promise<readonly ShellCommand[]> | undefined;
  /** Where a path lands, symlinks followed (the env's file ops' `realPath`), or undefined when the env does not say. */
  realPath?(path: string): Promise<string> | undefined;
}

/**
 * What the rules say about a call, and what they were matched against; `message` says why a part of it could not be
 * known before it runs, `guarded` that the ask stands for a deny (see {@link PermissionVerdict}).
 */
type Judgement = Pick<PermissionRecord, 'key' | 'subjects' | 'action' | 'rule' | 'message'> & { guarded?: boolean };

/** The subjects of a call's declared inputs, and what made part of them unknowable or unjudgeable. */
interface Subjects {
  match: MatchSubject[];
  external: MatchSubject[];
  /** Why a subject is known only when it runs, by subject text. */
  unknown: Map<string, string>;
  refused?: string;
}

/**
 * A run's permission gate (docs/permissions.md). In ACT, before a tool runs, it matches the run's rules against the
 * call's main input (the tool's `permission` field): allow runs it, deny refuses it with an error result naming the
 * rule, ask waits for the run's approver (`onApproval`, the terminal, the server) until it answers, the wait times
 * out or the run is aborted (both refuse the call). "Always" answers are kept for the rest of the run. Every
 * decision becomes a `permission` event and the call's `ActionResult.permission`.
 */
export class PermissionGate {
  private readonly grants: Array<{ key: string; subject: string }> = [];

  constructor(private readonly o: PermissionGateOptions) {}

  /** The flat rules (the manifest records them; a replay compares them). */
  get rules(): readonly PermissionRule[] {
    return this.o.rules.rules;
  }

  /**
   * What the rules say about a call, without asking: the tool's rule (and the `edit` key's for a tool that changes
   * files) over every command its command line runs and every path as given and where it lands, made stricter by
   * `external_directory` for paths outside the workspace.
   */
  async judge(action: Action, tool: AnyTool | undefined, args: unknown): Promise<Judgement> {
    const key = action.name;
    const also = tool?.edits ? 'edit' : undefined;
    let declared: PermissionSubject | readonly PermissionSubject[] | undefined;
    let found: Subjects;
    try {
      declared = tool?.permission?.(args as never);
      found = await this.subjects(
        key,
        also,
        declared === undefined ? [] : Array.isArray(declared) ? declared : [declared as PermissionSubject],
      );
    } catch (err) {
      // A call whose inputs cannot be worked out is refused (fail closed), saying why.
      return {
        key,
        subjects: [`(the permission input of ${key} failed: ${errorMessage(err)})`],
        action: 'deny',
        rule: null,
      };
    }
    const subjects = found.match.map((m) => m.text);
    if (found.refused) return { key, subjects, action: 'deny', rule: null, message: found.refused };
    const own = this.o.rules.evaluate(key, found.match, also);
    if (found.external.length && this.o.rules.mentions(EXTERNAL_DIRECTORY)) {
      const ext = this.o.rules.evaluate(EXTERNAL_DIRECTORY, found.external);
      if (RANK[ext.action] > RANK[own.action])
        return { key: EXTERNAL_DIRECTORY, subjects: found.external.map((e) => e.text), ...ext };
    }
    return { key, subjects, ...own, ...this.why(key, also, own, found) };
  }

  /** The subjects to match for a call's declared inputs: each command a command line runs, each path and where it lands. */
  private async subjects(
    key: string,
    also: string | undefined,
    declared: readonly PermissionSubject[],
  ): Promise<Subjects> {
    const out: Subjects = { match: [], external: [], unknown: new Map() };
    for (const s of declared) {
      if (s.kind === 'command') await this.commandSubjects(key, also, s.value, out);
      else if (s.kind === 'path') await this.pathSubjects(s.value, out);
      else out.match.push({ text: s.value });
    }
    return out;
  }

  /**
   * A command line's subjects: what the env's shell will run. Skipped when no rule of the key can say anything but
   * allow (nothing to find); without the env's reading, the line is one command known only when it runs.
   */
  private async commandSubjects(key: string, also: string | undefined, line: string, out: Subjects): Promise<void> {
    if (!this.o.rules.restricts(key, also)) return void out.match.push({ text: line });
    const read = this.o.commands?.(line);
    const commands: readonly ShellCommand[] = read
      ? await read
      : [{ text: line, shape: ANY_COMMAND, unknown: 'this env does not say how its shell reads a command line' }];
    for (const c of commands) {
      if (c.refused) out.refused ??= `the command line is refused: ${c.refused}`;
      out.match.push({ text: c.text, ...(c.shape ? { shape: c.shape } : {}) });
      if (c.unknown) out.unknown.set(c.text, c.unknown);
    }
  }

  /** A path's subjects: the path as given and, when a symlink takes it elsewhere, where it lands (both must pass). */
  private async pathSubjects(path: string, out: Subjects): Promise<void> {
    const given = this.placePath(path);
    const places = [given];
    const real = await this.o.realPath?.(path);
    if (real !== undefined) {
      const landed = this.placePath(real);
      if (landed.subject.text !== given.subject.text) places.push(landed);
    }
    for (const p of places) {
      out.match.push(p.subject);
      if (p.external) out.external.push({ text: p.subject.text });
    }
  }

  /** Why a verdict that is not allow rests on commands known only when they run (the reasons of those commands). */
  private why(key: string, also: string | undefined, own: PermissionVerdict, found: Subjects): { message?: string } {
    if (own.action === 'allow' || !found.unknown.size) return {};
    const reasons = new Set<string>();
    for (const m of found.match) {
      const reason = found.unknown.get(m.text);
      if (reason && this.o.rules.evaluate(key, [m], also).action !== 'allow') reasons.add(`${m.text}: ${reason}`);
    }
    return reasons.size ? { message: [...reasons].slice(0, 3).join('; ') } : {};
  }

  /** What the ACT phase's context gets: `permit` for the executor, `judge` for a replay's comparison. */
  actHooks(): Pick<ActContext, 'permit' | 'judge'> {
    return {
      permit: (action, tool, args) => this.permit(action, tool, args),
      judge: (action) => this.judge(action, this.o.tool(action.name), action.args),
    };
  }

  /**
   * Decides a tool call: by rule, by an earlier "always", or by asking. An ask that stands for a possible deny (a
   * command known only when it runs) is not settled by an approver that approves everything (`--auto`).
   */
  async permit(action: Action, tool: AnyTool, args: unknown): Promise<PermissionRecord> {
    const { guarded, ...j } = await this.judge(action, tool, args);
    if (j.action !== 'ask')
      return this.settle(action.id, action.name, {
        ...j,
        outcome: j.action === 'deny' ? 'deny' : 'allow',
        decidedBy: 'rule',
        at: Date.now(),
      });
    const shown = j.subjects.join(' ; ') || JSON.stringify(action.args).slice(0, 200);
    let record = await this.ask(j, {
      callId: action.id,
      tool: action.name,
      args: action.args,
      title: `${action.name} ${shown}${j.message ? ` (${j.message})` : ''}`,
    });
    if (guarded && record.outcome === 'allow' && record.decidedBy === 'auto')
      record = {
        ...record,
        outcome: 'deny',
        decidedBy: 'default',
        message: `an automatic approval does not cover a command a deny rule may match (${j.message ?? shown})`,
      };
    return this.settle(action.id, action.name, record);
  }

  /**
   * The doom-loop policy fired: true when the run goes on (`doom_loop: allow`, or an ask answered yes), false when
   * it stops as without rules (`deny`, no `doom_loop` rule, or an ask refused).
   */
  async continueDoomLoop(message: string): Promise<boolean> {
    if (!this.o.rules.mentions(DOOM_LOOP)) return false;
    const v = this.o.rules.evaluate(DOOM_LOOP, []);
    const j: Judgement = { key: DOOM_LOOP, subjects: [], ...v };
    const record =
      j.action === 'ask'
        ? await this.ask(j, { title: `the run repeats itself: ${message}` })
        : {
            ...j,
            outcome: j.action === 'deny' ? ('deny' as const) : ('allow' as const),
            decidedBy: 'rule' as const,
            at: Date.now(),
          };
    this.settle(undefined, undefined, record);
    return record.outcome === 'allow';
  }

  /**
   * Asks the approver for something that is not a tool call (a workflow interrupt node's value), with the same
   * timeout, abort and records as a call's ask; "always" is taken as "once" (nothing to grant).
   */
  async askHuman(what: HumanAsk): Promise<PermissionRecord> {
    const j: Judgement = { key: what.key, subjects: what.subjects, action: 'ask', rule: null };
    return this.settle(
      undefined,
      undefined,
      await this.ask(j, { title: what.title, ...(what.input ? { input: what.input } : {}) }, false),
    );
  }

  /** The message the model sees for a refused call. */
  static refusal(r: PermissionRecord): string {
    const rule = r.rule ? `rule ${r.rule.key} ${JSON.stringify(r.rule.pattern)}: ${r.rule.action}` : 'no rule';
    if (r.decidedBy === 'rule')
      return (
        `Permission denied: this call was refused by the permission rules (${rule}${r.message ? `; ${r.message}` : ''}). ` +
        `Do not retry it; use another way or ask the user.`
      );
    const why =
      r.decidedBy === 'timeout'
        ? 'no answer came in time'
        : r.decidedBy === 'abort'
          ? 'the run was stopped while it waited'
          : r.decidedBy === 'default'
            ? 'no one could answer here'
            : 'the user rejected it';
    return `Permission denied: this call needed approval (${rule}) and was refused: ${why}.${r.message ? ` Message: ${r.message}` : ''}`;
  }

  private settle(callId: string | undefined, tool: string | undefined, record: PermissionRecord): PermissionRecord {
    void this.o.emit({
      type: 'permission',
      step: this.o.step(),
      ...(callId ? { callId } : {}),
      ...(tool ? { tool } : {}),
      record,
    });
    return record;
  }

  /** Asks the approver, unless an "always" of this run already covers every subject. */
  private async ask(
    j: Judgement,
    what: { callId?: string; tool?: string; args?: Record<string, unknown>; title: string; input?: HumanAsk['input'] },
    grants = true,
  ): Promise<PermissionRecord> {
    if (
      grants &&
      (j.subjects.length ? j.subjects : ['']).every((s) => this.grants.some((g) => g.key === j.key && g.subject === s))
    ) {
      return { ...j, outcome: 'allow', decidedBy: 'grant', at: Date.now() };
    }
    const approver = this.o.approver;
    const created = Date.now();
    if (!approver)
      return {
        ...j,
        outcome: 'deny',
        decidedBy: 'default',
        message: `${j.message ? `${j.message}; ` : ''}no approver is attached to this run (no terminal, no onApproval)`,
        at: created,
      };
    const request: ApprovalRequest = {
      id: newId('apr'),
      runId: this.o.runId,
      step: this.o.step(),
      ...what,
      key: j.key,
      subjects: j.subjects,
      rule: j.rule,
      createdAt: created,
      expiresAt: created + this.o.timeoutMs,
    };
    const pending = this.o.emit({ type: 'approval', step: request.step, status: 'pending', request });
    if (pending) await pending;
    const { outcome, reply } = await this.wait(approver, request);
    const base = { ...j, approvalId: request.id, waitedMs: Date.now() - created, at: Date.now() };
    let record: PermissionRecord;
    if (outcome !== 'reply')
      record = { ...base, outcome: 'deny', decidedBy: outcome, ...(reply?.message ? { message: reply.message } : {}) };
    else {
      const by = reply!.by ?? 'onApproval';
      record = {
        ...base,
        outcome: reply!.decision === 'reject' ? 'deny' : 'allow',
        decidedBy: by === 'auto' ? 'auto' : by === 'replay' ? 'replay' : 'user',
        approver: by,
        ...(reply!.message ? { message: reply!.message } : {}),
      };
      if (grants && reply!.decision === 'always')
        for (const subject of j.subjects.length ? j.subjects : ['']) this.grants.push({ key: j.key, subject });
    }
    void this.o.emit({
      type: 'approval',
      step: request.step,
      status: 'answered',
      request,
      reply: reply ?? { decision: 'reject', by: outcome === 'reply' ? 'onApproval' : outcome },
    });
    return record;
  }

  /** Waits for the approver's reply, the timeout or the run's abort, whichever comes first; the approver's signal then ends its wait. */
  private wait(
    approver: Approver,
    request: ApprovalRequest,
  ): Promise<{ outcome: 'reply' | 'timeout' | 'abort' | 'default'; reply?: ApprovalReply }> {
    const controller = new AbortController();
    const run = this.o.signal;
    return new Promise((resolveWait) => {
      let done = false;
      const finish = (v: { outcome: 'reply' | 'timeout' | 'abort' | 'default'; reply?: ApprovalReply }) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        run.removeEventListener('abort', onAbort);
        controller.abort(new Error(`approval ${request.id} ${v.outcome === 'reply' ? 'answered' : v.outcome}`));
        resolveWait(v);
      };
      const timer = setTimeout(
        () =>
          finish({
            outcome: 'timeout',
            reply: { decision: 'reject', message: `no answer within ${this.o.timeoutMs} ms`, by: 'timeout' },
          }),
        this.o.timeoutMs,
      );
      const onAbort = () =>
        finish({ outcome: 'abort', reply: { decision: 'reject', message: 'the run was aborted', by: 'abort' } });
      if (run.aborted) return onAbort();
      run.addEventListener('abort', onAbort, { once: true });
      let answer: Promise<ApprovalReply>;
      try {
        answer = Promise.resolve(approver(request, controller.signal));
      } catch (err) {
        answer = Promise.reject(err);
      }
      answer.then(
        (reply) => {
          const parsed = ApprovalReplySchema.safeParse(reply);
          if (parsed.success) finish({ outcome: 'reply', reply: parsed.data });
          else
            finish({
              outcome: 'default',
              reply: {
                decision: 'reject',
                message: `the approver's answer is not valid (${JSON.stringify(reply)?.slice(0, 100)})`,
                by: 'default',
              },
            });
        },
        (err) =>
          finish({
            outcome: 'default',
            reply: { decision: 'reject', message: `the approver failed: ${errorMessage(err)}`, by: 'default' },
          }),
      );
    });
  }

  /** A path as rules see it: workspace-relative (posix) inside the workspace, absolute outside it. */
  private placePath(p: string): { subject: MatchSubject; external: boolean } {
    const root = this.o.root();
    if (!root) return { subject: { text: p }, external: false };
    const abs = resolve(root, p);
    const rel = relative(root, abs);
    const inside = rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
    if (!inside) return { subject: { text: abs }, external: true };
    return { subject: { text: rel === '' ? '.' : rel.split(sep).join(posix.sep), absolute: abs }, external: false };
  }
}

/** An approver that says yes to every ask (`--auto`): deny rules still refuse. */
export const autoApprove: Approver = () => ({ decision: 'once', by: 'auto' });

/** How the env's shell reads a command line (its process ops' `commands`), or undefined when the env does not say. */
export function envCommands(
  env: { ops(group: string): unknown },
  line: string,
): Promise<readonly ShellCommand[]> | undefined {
  return (env.ops('process') as ProcessOps | undefined)?.commands?.(line);
}

/** Where a path lands in the env (its file ops' `realPath`), or undefined when the env does not say. */
export function envRealPath(env: { ops(group: string): unknown }, path: string): Promise<string> | undefined {
  return (env.ops('file') as FileOps | undefined)?.realPath?.(path);
}

/** The workspace root of an env with file ops, for deciding which paths are external. */
export function workspaceRoot(env: { ops(group: string): unknown }): string | undefined {
  const files = env.ops('file') as FileOps | undefined;
  return typeof files?.root === 'string' ? files.root : undefined;
}
