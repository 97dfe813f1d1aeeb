import type {
  ActionResult,
  AssistantMessage,
  BranchRecord,
  CritiqueRecord,
  Decision,
  ModelMessage,
  ModelTurn,
  Phase,
  StepRecord,
  StopVerdict,
  ToolSpec,
} from '../core/index.js';

/**
 * The record of one step as steps.jsonl holds it, and its one writer. The `RunLoop` owns one per step and tells
 * it what each phase did, in the order the phases run; the trace recorder reads `record` (and adds the state diff
 * and, when it changed, the system prompt to its own copy), never writes it.
 */
export class StepRecordBuilder {
  private readonly rec: StepRecord;
  private turn: ModelTurn | undefined;

  constructor(step: number) {
    // `stateDiff` is the recorder's to compute; it is here so the line's fields keep their order.
    this.rec = {
      step,
      startedAt: Date.now(),
      durationMs: 0,
      phases: {},
      observation: null,
      decision: null,
      results: [],
      stateDiff: {},
    };
  }

  /** The record so far (the whole record once `finished`). */
  get record(): Readonly<StepRecord> {
    return this.rec;
  }

  /** The reply of the step's model turn, whose tool parts the step's results complete. */
  get reply(): AssistantMessage | undefined {
    return this.turn?.message;
  }

  /** The system prompt of the step's model call (the trace writes it when it changed). */
  get system(): string | undefined {
    return this.turn?.system;
  }

  /** The tool specs the step's model call sent (the trace writes them the first time their hash is seen). */
  get tools(): readonly ToolSpec[] | undefined {
    return this.turn?.sent.request.tools;
  }

  /** The messages the step's model call sent (undefined when the step took no model turn). */
  get sentMessages(): readonly ModelMessage[] | undefined {
    return this.turn?.sent.request.messages;
  }

  /** True once DECIDE produced a decision (an error after it is an error of the step, not of deciding). */
  get hasDecision(): boolean {
    return this.rec.decision !== null;
  }

  /** A phase ended after `ms`. */
  phaseTimed(phase: Phase, ms: number): void {
    this.rec.phases[phase] = round(ms);
  }

  /** OBSERVE: what the agent observed. */
  observed(observation: unknown): void {
    this.rec.observation = observation ?? null;
  }

  /** DECIDE took a model turn: what was sent (hashes), the response, latency, tokens and cost. */
  modelTurn(turn: ModelTurn): void {
    this.turn = turn;
    this.rec.model = {
      hashes: turn.sent.hashes,
      messageCount: turn.sent.request.messages.length,
      ...(turn.memory ? { memory: turn.memory } : {}),
      response: turn.response,
      latencyMs: turn.latencyMs,
    };
    this.rec.tokens = turn.response.usage;
    this.rec.cost = turn.response.cost;
  }

  /** DECIDE narrowed a branch to one candidate. */
  branched(record: BranchRecord): void {
    this.rec.branch = record;
  }

  /** DECIDE's decision, the one the step acts on. */
  decided(decision: Decision): void {
    this.rec.decision = decision;
  }

  /** A breakpoint's `edit`: the step acts on `decision`; `original` is what DECIDE gave. */
  edited(original: Decision, decision: Decision): void {
    this.rec.decision = decision;
    this.rec.edited = { original };
  }

  /** ACT: the results, in action order. */
  acted(results: ActionResult[]): void {
    this.rec.results = results;
  }

  /** CRITIQUE: each critic's verdict. */
  critiqued(records: CritiqueRecord[]): void {
    this.rec.critiques = records;
  }

  /** RECOVER: the error of a phase, and whether the loop goes on. */
  failed(error: NonNullable<StepRecord['error']>): void {
    this.rec.error = error;
  }

  /** The step is over after `ms`; `verdict` when the run stops with it. */
  finished(ms: number, verdict: StopVerdict | undefined): void {
    this.rec.durationMs = round(ms);
    if (verdict) this.rec.stop = verdict;
  }
}

/** Milliseconds rounded to the microsecond (trace size). */
function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
