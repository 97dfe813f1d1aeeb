/**
 * What one workflow run carries outside its state, kept in the run's context (`ctx.local(WorkflowRun)`), never on
 * the agent: one WorkflowAgent may serve several runs at once, and nothing here outlives its run. Neither part is
 * traced, replayed or resumed: what a step's DECIDE worked out for that step's REDUCE (a model reply, a condition's
 * outcome, a context processor's output), and when the current node started (its record's `executionTimeMs`).
 */
export class WorkflowRun {
  /** DECIDE's work for REDUCE, with the step and node it is for: a step that never reached REDUCE leaves nothing usable. */
  private carried: { step: number; node: string; work: unknown } | undefined;
  /** The node being run and when its first DECIDE began (retries and tool-loop turns included). */
  private started: { node: string; at: number } | undefined;

  /** Node `node` is current at DECIDE: its clock starts, unless it was already running (a retry, a tool-loop turn). */
  enter(node: string): void {
    if (this.started?.node !== node) this.started = { node, at: Date.now() };
  }

  /** DECIDE of `step` at `node` hands `work` to the same step's REDUCE (replacing whatever an earlier step left). */
  carry(step: number, node: string, work: unknown): void {
    this.carried = work === undefined ? undefined : { step, node, work };
  }

  /** What DECIDE of this step and node handed over, once (undefined when it handed nothing, or DECIDE did not run). */
  take(step: number, node: string | null): unknown {
    const c = this.carried;
    this.carried = undefined;
    return c && c.step === step && c.node === node ? c.work : undefined;
  }

  /** The node ended: the milliseconds since it started (none when this run did not see its DECIDE: a forced decision). */
  executionTime(node: string): { executionTimeMs?: number } {
    const s = this.started;
    if (s?.node !== node) return {};
    this.started = undefined;
    return { executionTimeMs: Date.now() - s.at };
  }
}
