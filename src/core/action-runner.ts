import type { Action, ActionResult } from './action.js';
import type { ToolContext } from './tool.js';
import type { ToolState } from './tool-state.js';
import type { AnyTool } from './tool.js';
import type { PermissionRecord } from './permission.js';

/** What every tool call of one ACT phase shares (the per-call parts, `callId`, `signal`, `metadata`, come later). */
export type RunToolContext = Omit<ToolContext, 'callId' | 'signal' | 'metadata'>;

/** Everything one ACT phase needs besides the actions. */
export interface ActContext extends RunToolContext {
  signal: AbortSignal;
  /**
   * Told every ToolState move of every call, for hooks, the trace and `Engine.stream`; it may return a promise
   * (a slow stream consumer), which the runner awaits before it goes on. The results alone go to the history.
   */
  onState(action: Action, state: ToolState): void | Promise<void>;
  /**
   * The run's permission gate (when it has rules): decides a call before its tool runs, asking a human when a
   * rule says `ask`. A `deny` outcome means the tool must not run.
   */
  permit?(action: Action, tool: AnyTool, args: unknown): PermissionRecord | Promise<PermissionRecord>;
  /** What the rules say about a call, without asking anyone (a replay compares it with the recorded decision). */
  judge?(action: Action): Promise<Pick<PermissionRecord, 'key' | 'subjects' | 'action' | 'rule'>>;
}

/**
 * Carries out a decision's actions and returns one result per action, in action order. The engine's
 * `ActionExecutor` runs tools; a replay's `ReplayExecutor` serves recorded results.
 */
export interface ActionRunner {
  run(actions: readonly Action[], ctx: ActContext): Promise<ActionResult[]>;
}
