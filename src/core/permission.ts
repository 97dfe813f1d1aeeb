import { z } from 'zod';

/** What a permission rule says about a tool call: run it, ask a human first, or refuse it. */
export const PermissionAction = z.enum(['allow', 'ask', 'deny']);
export type PermissionAction = z.infer<typeof PermissionAction>;

/** One key's rule: an action for every call, or patterns over the call's main input (last matching pattern wins). */
export const PermissionRuleValue = z.union([
  PermissionAction,
  z.record(z.string().min(1, 'a pattern may not be empty'), PermissionAction),
]);
export type PermissionRuleValue = z.infer<typeof PermissionRuleValue>;

/**
 * Permission rules in the shape opencode's `permission` config uses: one action for every tool, or an object
 * whose keys are tool ids (wildcards allowed: `"*"`, `"github_*"`), `external_directory` (paths outside the
 * workspace) or `doom_loop` (what to do when the doom-loop policy fires), each an action or an object of patterns
 * over the call's main input. Keys and patterns are read in the order written: the last matching rule wins.
 */
export const PermissionConfig = z.union([
  PermissionAction,
  z.record(z.string().min(1, 'a permission key may not be empty'), PermissionRuleValue),
]);
export type PermissionConfig = z.infer<typeof PermissionConfig>;

/** The keys of a permission config that are not tool ids. */
export const EXTERNAL_DIRECTORY = 'external_directory';
export const DOOM_LOOP = 'doom_loop';

/** One flat rule: for calls whose key matches `key` and whose input matches `pattern`, `action`. */
export const PermissionRule = z.object({ key: z.string(), pattern: z.string(), action: PermissionAction });
export type PermissionRule = z.infer<typeof PermissionRule>;

/** What a tool's call is about, for its permission rules: a path, a command, a host, or plain text. */
export interface PermissionSubject {
  kind: 'path' | 'command' | 'host' | 'text';
  value: string;
}

/** Who settled a call: its rule, a human or program answering an ask, or the fallbacks of an ask nobody answered. */
export const PermissionDecider = z.enum(['rule', 'grant', 'user', 'auto', 'default', 'timeout', 'abort', 'replay']);
export type PermissionDecider = z.infer<typeof PermissionDecider>;

/** The record of one permission decision (on the call's ActionResult, in the step record and the trace). */
export const PermissionRecord = z.object({
  /** The permission key checked (the tool id, `external_directory`, `doom_loop`). */
  key: z.string(),
  /** The inputs the rules were matched against. */
  subjects: z.array(z.string()),
  /** What the rules said: the most restrictive over the subjects. */
  action: PermissionAction,
  /** The rule that decided (the last match), or null when none matched (allowed by default). */
  rule: PermissionRule.nullable(),
  /** What happened: the call ran or it was refused. */
  outcome: z.enum(['allow', 'deny']),
  decidedBy: PermissionDecider,
  /** Which answerer replied to an ask (`tty`, `server`, `onApproval`, a workflow resume, ...). */
  approver: z.string().optional(),
  /** The request id of an ask. */
  approvalId: z.string().optional(),
  /** A rejection's reason, shown to the model. */
  message: z.string().optional(),
  /** When the decision was made (epoch ms) and how long an ask waited. */
  at: z.number(),
  waitedMs: z.number().nonnegative().optional(),
});
export type PermissionRecord = z.infer<typeof PermissionRecord>;

/** A call waiting for a human: what `onApproval`, the terminal, the server and a workflow resume answer. */
export const ApprovalRequest = z.object({
  id: z.string(),
  runId: z.string(),
  step: z.number(),
  /** The action id of the call (absent for a doom-loop ask). */
  callId: z.string().optional(),
  key: z.string(),
  tool: z.string().optional(),
  args: z.record(z.string(), z.unknown()).optional(),
  subjects: z.array(z.string()),
  rule: PermissionRule.nullable(),
  /** A one-line description for a prompt. */
  title: z.string(),
  /**
   * Set when a workflow `interrupt` node asks for a value rather than for leave to run a call: an approval's
   * `message` is the value of `variable` (no message: `true`); a rejection fails the node.
   */
  input: z.object({ node: z.string(), variable: z.string(), prompt: z.string() }).optional(),
  createdAt: z.number(),
  /** When the ask times out (epoch ms). */
  expiresAt: z.number(),
});
export type ApprovalRequest = z.infer<typeof ApprovalRequest>;

/**
 * The answer to an ask: run it `once`, `always` (these subjects of this key, for the rest of this run), or
 * `reject` (with a message the model sees). `by` names who answered, for the record.
 */
export const ApprovalReply = z.object({
  decision: z.enum(['once', 'always', 'reject']),
  message: z.string().max(4000).optional(),
  by: z.string().max(100).optional(),
});
export type ApprovalReply = z.infer<typeof ApprovalReply>;

/** What an agent asks a human through the run's approver (`AgentContext.askHuman`): a workflow interrupt node's value. */
export interface HumanAsk {
  /** The permission key recorded for the ask (`interrupt`). */
  key: string;
  title: string;
  subjects: string[];
  input?: ApprovalRequest['input'];
}

/** Answers asks: the terminal, a server's pending approvals, a program (`EngineOptions.onApproval`). */
export type Approver = (request: ApprovalRequest, signal: AbortSignal) => ApprovalReply | Promise<ApprovalReply>;
