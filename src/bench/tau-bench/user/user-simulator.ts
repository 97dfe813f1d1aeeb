/**
 * One message of the user simulator's own conversation. Roles are flipped, as in the original: the agent's messages
 * are `user` and the simulated customer's are `assistant` (the simulator's model plays the assistant).
 */
export interface UserTurn {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/**
 * What a simulator asks its model: the messages of one request, and what the call is for (`reply`: the customer's
 * next message; `verify` and `reflect`: the supervisor prompts of the `verify` and `reflection` strategies).
 * Resolves to the reply's text. The tau env builds it over the run's `callModel`, so every call is counted and traced.
 */
export type AskUserModel = (messages: readonly UserTurn[], kind: 'reply' | 'verify' | 'reflect') => Promise<string>;

/**
 * A simulated customer (`tau_bench/envs/user.py`'s `BaseUserSimulationEnv`): `reset` starts a conversation for an
 * instruction and returns the customer's first message (an answer to the agent's greeting), `step` gives it the
 * agent's message and returns its answer. A message containing `###STOP###` ends the episode.
 */
export interface UserSimulator {
  /** The strategy's name (`llm`, `react`, `verify`, `reflection`, `scripted`). */
  readonly strategy: string;
  /** The simulator's own conversation so far (roles flipped; see UserTurn). */
  readonly messages: readonly UserTurn[];
  reset(instruction: string, ask: AskUserModel): Promise<string>;
  step(content: string, ask: AskUserModel): Promise<string>;
}
