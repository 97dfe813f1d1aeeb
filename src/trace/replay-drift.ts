import { QitosError, markErrorClass } from '../core/index.js';

/** The part of a model request or tool call where a replay left its recording. */
export type DriftPart =
  'system' | 'messages' | 'tools' | 'params' | 'model-calls' | 'tool-call' | 'memory' | 'permission';

/** Where a replay's live run differs from the recorded one. */
export interface ReplayDrift {
  /** The recorded step the difference belongs to. */
  step: number;
  parts: DriftPart[];
  message: string;
  /**
   * For a drift in the system prompt or the tool schemas: a unified diff of the recorded text (`-`) against the
   * live one (`+`), or null with a note when the trace does not hold the recorded text (an older trace).
   */
  texts?: Array<{ part: 'system' | 'tools'; diff: string | null; note?: string }>;
}

/** Readable names of drift parts, for messages. */
export const DRIFT_PART_NAMES: Record<DriftPart, string> = {
  system: 'system prompt',
  messages: 'messages',
  tools: 'tool schemas',
  params: 'model params',
  'model-calls': 'number of model calls',
  'tool-call': 'tool call',
  memory: 'memory access',
  permission: 'permission rules',
};

/**
 * A replay left its recording (and drift was not allowed). It ends the run at once: repeating the same
 * request would not fix it, so it is classified like a bad model request.
 */
export class ReplayDriftError extends QitosError {
  static {
    markErrorClass(this, 'ReplayDriftError');
  }

  constructor(readonly drift: ReplayDrift) {
    super('model_request', drift.message);
    this.name = 'ReplayDriftError';
  }
}
