import type { AgentContext } from '../../../engine/agent-module.js';
import { frozenRecord } from '../frozen-record.js';
import type { NodeConfig } from '../nodes/node-config.js';
import type { NodeRecord, ThreadState } from '../thread-state.js';
import type { WorkflowRun } from '../workflow-run.js';
import type { NodeHost } from './node-host.js';

/** What ends a node besides its id, kind, step and attempts: how it went, what it was given and gave. */
export type NodeOutcome = Pick<NodeRecord, 'status' | 'inputs' | 'outputs'> & {
  error?: string;
  tokens?: NodeRecord['tokens'];
};

/**
 * One node step as a handler sees it (in DECIDE or REDUCE): the agent's fixed parts, the run's thread, context
 * and run-local part, and the moves that end a node (`finish`, `fail`).
 */
export class NodeStep {
  constructor(
    readonly host: NodeHost,
    readonly thread: ThreadState,
    readonly ctx: AgentContext,
    readonly run: WorkflowRun,
  ) {}

  /** Where the thread goes after `node` by its one edge (null: nowhere). */
  next(node: NodeConfig): string | null {
    return this.host.workflow.successors(node.id)[0] ?? null;
  }

  /** Records `node` as ended and moves the thread to `next` (an interrupt that waits stays on its node). */
  finish(node: NodeConfig, rec: NodeOutcome, next: string | null): void {
    const t = this.thread;
    this.record(node, { attempts: t.attempts + 1, ...rec });
    t.attempts = 0;
    if (t.status === 'waiting') return;
    t.current = next;
  }

  /** Records `node` as failed with `error`, and the thread with it. */
  fail(node: NodeConfig, inputs: unknown, error: string): void {
    const t = this.thread;
    this.record(node, { status: 'error', inputs, outputs: null, error, attempts: t.attempts + 1 });
    t.status = 'failed';
    t.reason = `node "${node.id}" (${node.kind}) failed: ${error}`;
  }

  /** Appends the node's record (frozen, in the order of `fields`: the trace keeps it) with how long the node took. */
  private record(node: NodeConfig, fields: Omit<NodeRecord, 'node' | 'kind' | 'step'>): void {
    this.thread.completed.push(
      frozenRecord({
        node: node.id,
        kind: node.kind,
        step: this.ctx.step,
        ...fields,
        ...this.run.executionTime(node.id),
      }),
    );
  }
}
