import type {
  ActContext,
  Action,
  ActionResult,
  ActionRunner,
  AnyTool,
  PermissionRecord,
  ToolOutput,
  ToolState,
} from '../core/index.js';
import { describeIssues, errorMessage } from '../core/index.js';
import { forEachConcurrent } from './for-each-concurrent.js';
import { PermissionGate } from './permission-gate.js';
import type { ToolRegistry } from './tool-registry.js';

/** Options of the action executor. */
export interface ExecutorOptions {
  /** Run a decision's actions concurrently (results still come back in action order). */
  parallel?: boolean;
  /** At most this many actions at once when parallel. */
  concurrency?: number;
  /** Timeout of one tool call, ms (default 120 000), unless the action or the tool sets its own (see {@link callTimeout}). */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 120_000;
/** Extra time the executor gives a tool with its own limit, so the tool's own timeout report comes first. */
export const TOOL_TIMEOUT_GRACE_MS = 5_000;

/**
 * The one timeout rule of a tool call: the action's own `timeoutMs` when it has one; else, for a tool that
 * declares a limit for its arguments (bash: `timeoutMs` of the call, else its default), that limit plus
 * {@link TOOL_TIMEOUT_GRACE_MS}; else the executor's `timeoutMs` (default 120 s).
 */
export function callTimeout(
  action: Action,
  tool: AnyTool,
  args: unknown,
  executorTimeoutMs: number | undefined,
): number {
  if (action.timeoutMs !== undefined) return action.timeoutMs;
  const own = tool.timeoutMs?.(args);
  if (own !== undefined) return own + TOOL_TIMEOUT_GRACE_MS;
  return executorTimeoutMs ?? DEFAULT_TIMEOUT_MS;
}

/**
 * Runs actions through the tool registry: arguments validated with zod, each call timed out and abortable,
 * each moving pending -> running -> completed | error. A tool that throws or hangs becomes an error result;
 * nothing a tool does takes the engine down.
 */
export class ActionExecutor implements ActionRunner {
  constructor(
    private readonly registry: ToolRegistry,
    private readonly options: ExecutorOptions = {},
  ) {}

  async run(actions: readonly Action[], ctx: ActContext): Promise<ActionResult[]> {
    if (!this.options.parallel || actions.length < 2) {
      const out: ActionResult[] = [];
      for (const a of actions) out.push(await this.runOne(a, ctx));
      return out;
    }
    const results = new Array<ActionResult>(actions.length);
    await forEachConcurrent(actions, this.options.concurrency ?? 4, async (action, i) => {
      results[i] = await this.runOne(action, ctx);
    });
    return results;
  }

  private async runOne(action: Action, ctx: ActContext): Promise<ActionResult> {
    const created = Date.now();
    const input = action.args;
    const toldPending = ctx.onState(action, { status: 'pending', input, time: { created } });
    if (toldPending) await toldPending;
    let running: ToolState | undefined;
    const admitted = await this.admit(action, ctx);
    const permission = admitted.permission;
    const fail = async (error: string, start = created): Promise<ActionResult> => {
      const end = Date.now();
      // Metadata a tool set before failing (e.g. the child trace of a sub-agent) stays visible.
      const metadata = running?.status === 'running' ? running.metadata : undefined;
      const state: ToolState = {
        status: 'error',
        input,
        error,
        ...(metadata ? { metadata } : {}),
        time: { created, start, end },
      };
      const told = ctx.onState(action, state);
      if (told) await told;
      return {
        actionId: action.id,
        name: action.name,
        status: 'error',
        output: null,
        error,
        latencyMs: end - start,
        state,
        ...(permission ? { permission } : {}),
      };
    };
    if ('refused' in admitted) return fail(admitted.refused);
    const { tool, args } = admitted;
    const start = Date.now();
    running = { status: 'running', input, time: { created, start } };
    const toldRunning = ctx.onState(action, running);
    if (toldRunning) await toldRunning;
    const timeoutMs = callTimeout(action, tool, args, this.options.timeoutMs);
    try {
      const out = await this.execute(tool, args, action, ctx, timeoutMs, (u) => {
        running = {
          ...running!,
          ...(u.title !== undefined ? { title: u.title } : {}),
          ...(u.metadata ? { metadata: u.metadata } : {}),
        } as ToolState;
        void ctx.onState(action, running); // a tool reports progress synchronously: nothing to wait on
      });
      const o: ToolOutput = typeof out === 'string' ? { output: out } : out;
      if (typeof o?.output !== 'string')
        throw new Error(
          `tool "${tool.id}" returned ${JSON.stringify(out)?.slice(0, 80)}; expected a string or { output: string }`,
        );
      const end = Date.now();
      const r = running as Extract<ToolState, { status: 'running' }>;
      const state: ToolState = {
        status: 'completed',
        input,
        output: o.output,
        ...((o.title ?? r.title) ? { title: o.title ?? r.title } : {}),
        ...((o.metadata ?? r.metadata) ? { metadata: { ...r.metadata, ...o.metadata } } : {}),
        ...(o.attachments ? { attachments: o.attachments } : {}),
        time: { created, start, end },
      };
      const told = ctx.onState(action, state);
      if (told) await told;
      return {
        actionId: action.id,
        name: action.name,
        status: 'success',
        output: o.full ?? o.output,
        latencyMs: end - start,
        state,
        ...(o.parts?.length ? { parts: o.parts } : {}),
        ...(permission ? { permission } : {}),
      };
    } catch (err) {
      return fail(errorMessage(err), start);
    }
  }

  /**
   * The tool and its parsed arguments, or why the call does not run: the run was interrupted, the tool is unknown,
   * the arguments do not match its schema, or the permission rules refused it (an ask waits here for its answer).
   */
  private async admit(
    action: Action,
    ctx: ActContext,
  ): Promise<
    { tool: AnyTool; args: unknown; permission?: PermissionRecord } | { refused: string; permission?: PermissionRecord }
  > {
    const aborted = 'Tool execution aborted: the run was interrupted';
    if (ctx.signal.aborted) return { refused: aborted };
    const tool = this.registry.get(action.name);
    if (!tool) {
      const names = this.registry.names;
      return {
        refused: `Unknown tool "${action.name}". Available tools: ${names.length ? names.join(', ') : '(none)'}.`,
      };
    }
    const parsed = tool.parameters.safeParse(action.args);
    if (!parsed.success) {
      return {
        refused:
          `Invalid arguments for tool "${tool.id}":\n${describeIssues(parsed.error)}\nRewrite the ` +
          `call with arguments that match the tool's schema.`,
      };
    }
    if (!ctx.permit) return { tool, args: parsed.data };
    const permission = await ctx.permit(action, tool, parsed.data);
    if (permission.outcome === 'deny') return { refused: PermissionGate.refusal(permission), permission };
    if (ctx.signal.aborted) return { refused: aborted, permission };
    return { tool, args: parsed.data, permission };
  }

  /** Runs `execute` racing the timeout and the run's abort; a hung tool is left behind, its late rejection handled. */
  private execute(
    tool: AnyTool,
    args: unknown,
    action: Action,
    ctx: ActContext,
    timeoutMs: number,
    metadata: (u: { title?: string; metadata?: Record<string, unknown> }) => void,
  ): Promise<ToolOutput | string> {
    const controller = new AbortController();
    return new Promise<ToolOutput | string>((resolve, reject) => {
      let settled = false;
      const finish = (fn: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        ctx.signal.removeEventListener('abort', onAbort);
        fn();
      };
      const timer = setTimeout(() => {
        controller.abort(new Error('timeout'));
        finish(() => reject(new Error(`Tool "${tool.id}" timed out after ${timeoutMs} ms`)));
      }, timeoutMs);
      const onAbort = () => {
        controller.abort(ctx.signal.reason);
        finish(() => reject(new Error('Tool execution aborted: the run was interrupted')));
      };
      ctx.signal.addEventListener('abort', onAbort, { once: true });
      let p: Promise<ToolOutput | string>;
      try {
        p = Promise.resolve(
          tool.execute(args, {
            runId: ctx.runId,
            traceDir: ctx.traceDir,
            step: ctx.step,
            callId: action.id,
            signal: controller.signal,
            env: ctx.env,
            state: ctx.state,
            metadata,
            services: ctx.services,
            depth: ctx.depth,
            callModel: ctx.callModel,
            childLink: ctx.childLink,
          }),
        );
      } catch (err) {
        p = Promise.reject(err);
      }
      p.then(
        (v) => finish(() => resolve(v)),
        (e) => finish(() => reject(e)),
      );
    });
  }
}
