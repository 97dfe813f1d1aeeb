import type { ServedAgent } from '../app/served-agents.js';
import type { Redactor } from '../core/index.js';
import type { SkillManager } from '../kit/skills/index.js';
import type { LiveRuns } from './live-runs.js';
import type { ApprovalQueue } from '../engine/approval-queue.js';
import type { LocalServerGuard } from './local-server-guard.js';

/** What `createServeApp` serves and its limits. */
export interface ServeAppOptions {
  /** The agents by id; the ids must be unique. */
  agents: ServedAgent[];
  /** Bearer token every request must carry; undefined for none (only sensible on loopback, see startServer). */
  token?: string;
  /** Runs at once; one more is answered 429 with `retry-after` (default 8). */
  maxRuns?: number;
  /** Cap on a JSON request body in bytes (default 1 MiB). */
  maxBodyBytes?: number;
  /** Cap on a skill ZIP upload in bytes (default 20 MiB). */
  maxUploadBytes?: number;
  /** The folder the engines write traces to: GET /v1/runs lists it. */
  traceDir: string;
  /** The skills root the skills API manages; without it those routes answer 404. */
  skills?: SkillManager;
  /** The served engines' approver (`onApproval`): their permission asks wait here for /v1/runs/:id/approvals. */
  approvals?: ApprovalQueue;
  /** How often a streamed completion whose run waits for an approval sends a keep-alive comment (default 15 000 ms). */
  heartbeatMs?: number;
  /**
   * The Host/Origin rule every route applies (403 otherwise). `startServer` always sets one; an app served some
   * other way checks neither unless given one.
   */
  guard?: LocalServerGuard;
  /** Secrets (the token, API keys, expanded `${VAR}`s) that no answer may hold: every body passes through it. */
  redactor?: Redactor;
}

/** How many connections a local server holds and how long a client may take to send a request. */
export interface ConnectionLimits {
  /** Open connections at once; past it a new one is closed at once (default 128). */
  maxConnections?: number;
  /** Time to receive a request's headers, in ms (Node's `headersTimeout`; default 10 s). */
  headersTimeoutMs?: number;
  /** Time to receive a whole request, headers and body, in ms (Node's `requestTimeout`; default 60 s). */
  requestTimeoutMs?: number;
}

/** What the route files share. */
export interface RouteContext {
  options: ServeAppOptions;
  runs: LiveRuns;
}

/** The default caps. */
export const SERVE_DEFAULTS = {
  maxRuns: 8,
  maxBodyBytes: 1024 * 1024,
  maxUploadBytes: 20 * 1024 * 1024,
  maxConnections: 128,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
} as const;
