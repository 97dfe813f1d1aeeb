import type { Approver } from './permission.js';
import type { PermissionRules } from './permission-rules.js';
import type { RunParent } from './run-link.js';
import type { TraceTap } from './trace-tap.js';
import type { Tokens } from './usage.js';

/**
 * The typed link from a run to its parent (`EngineOptions.parent`): what the manifest records, plus `spend`,
 * through which every model call of the run also counts in the parent's usage (tokens, cost, model calls) and
 * budgets, and `traced`, through which the run's trace writer hands the sha-256 of each manifest it writes to the
 * parent's (whose manifest lists it: the parent need not read 50 branch manifests back to sign its folder).
 */
export interface ParentLink extends RunParent {
  spend?(tokens: Tokens, cost: number | null, modelCalls: number): void;
  traced?(traceDir: string, manifestSha256: string): void;
  /** The parent's trace tap (`TraceOptions.tap`): a traced sub-run's records go to it too, unless its own options set one. */
  tap?: TraceTap;
  /**
   * The parent's permission rules, approver and approval timeout. A sub-run (a fork's branch, a subworkflow, a
   * sub-agent) without rules or an approver of its own is held to its parent's: it may not do what its parent may not.
   */
  permission?: InheritedPermission;
}

/** What a sub-run takes of its parent's permission (`ParentLink.permission`). */
export interface InheritedPermission {
  rules: PermissionRules | undefined;
  approver: Approver | undefined;
  timeoutMs: number | undefined;
}
