import type { PyDict } from './py/py-value.js';

/** The two domains of tau-bench. */
export type TauDomainName = 'airline' | 'retail';

/** One tool's `get_info()` dict from the original, as a JSON-able object (byte-for-byte the original's strings). */
export interface TauToolInfo {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/**
 * An action (a task's ground truth, or what a session recorded). `kwargs` is the Python value (a `Map`, floats as
 * `PyFloat`); `kwargsJson` is Python's `json.dumps(kwargs)`, exact, so int vs float survives plain JSON.
 */
export interface TauAction {
  name: string;
  kwargs: PyDict;
  kwargsJson: string;
}

/** One task of a split, as the original's `Task(...)`. */
export interface TauTask {
  domain: TauDomainName;
  split: string;
  index: number;
  /** `String(index)`. */
  id: string;
  userId: string;
  instruction: string;
  actions: TauAction[];
  outputs: string[];
  annotator?: string;
}

/** What one tool call gave: the observation string the model sees, as the original's `Env.step`. */
export interface TauCallResult {
  observation: string;
  /** The observation is an error (`Error: ...`, `Unknown action ...`, or arguments that are not a JSON object). */
  error: boolean;
  /** The tool is one of the domain's terminate tools (`transfer_to_human_agents`): the episode ends. */
  terminate: boolean;
  /**
   * Set when the original would have crashed the episode here instead of returning an observation (a tool that
   * returned None, which its `EnvResponse` refuses): its run records the trial with reward 0.0 and this error.
   */
  crash?: string;
}

/** `Env.calculate_reward` of the original. */
export interface TauReward {
  reward: number;
  dbHash: string;
  gtDbHash: string;
  /** The database matched the ground truth's. */
  rActions: boolean;
  /** Per required output: found in one of the agent's messages. Absent when the task has no outputs. */
  outputs?: Record<string, boolean>;
  rOutputs?: number;
  /** The episode crashed in the original (see `TauCallResult.crash`): reward 0.0. */
  crash?: string;
}

/** One trial's database and recorded actions. Cheap: it shares the domain's frozen database (copy-on-write). */
export interface TauSession {
  /**
   * Run a tool. `args` is the raw JSON text of a model's tool call (parsed as Python's `json.loads`), or an
   * already-parsed dict (a task action's kwargs).
   */
  call(name: string, args: string | PyDict): TauCallResult;
  /** Record a message the agent sent to the user (what the outputs check reads). */
  respond(content: string): void;
  /** `sha256(str(to_hashable(data)))` of this session's database, as the original's `get_data_hash`. */
  dbHash(): string;
  /** The reward of this session for `task` (the original's `calculate_reward`). */
  reward(task: TauTask): TauReward;
  /** Every call and respond recorded, in order (respond as `{ name: 'respond', kwargs: { content } }`). */
  readonly actions: readonly TauAction[];
}

/** A loaded domain: its wiki, rules, tool schemas, tasks and a session factory. */
export interface TauDomain {
  name: TauDomainName;
  /** The upstream commit the data was pinned to. */
  commit: string;
  wiki: string;
  rules: string[];
  /** The original's `get_info()` dicts in its `ALL_TOOLS` order. */
  tools: TauToolInfo[];
  splits: string[];
  tasks(split: string): TauTask[];
  terminateTools: string[];
  session(): TauSession;
}
