import { migrateState, type State } from '../core/index.js';
import type { AgentModule } from './agent-module.js';

/**
 * The state a resumed run (resume, fork, the replay of a fork) starts from: the recorded state brought to the
 * agent's state schema version by its migrations, when it was recorded under another (see `migrateState`).
 */
export function resumedState<S extends State>(
  agent: AgentModule<S, unknown>,
  from: { state: S; stateVersion?: number },
): S {
  if (from.stateVersion === undefined || from.stateVersion === agent.stateVersion) return from.state;
  return migrateState(
    from.state as unknown as Record<string, unknown>,
    from.stateVersion,
    agent.stateVersion,
    agent.stateMigrations,
    agent.name,
  ) as unknown as S;
}

/** The state schema version a trace's manifest records for its agent (1 for traces written before versions). */
export function recordedStateVersion(manifest: { agent: { stateVersion?: number } }): number {
  return manifest.agent.stateVersion ?? 1;
}

/**
 * Throws the migration error (naming the agent and both versions) when `agent` cannot read the states a trace
 * recorded: what replay and fork check before they start, so a mismatch is refused rather than run.
 */
export function checkRecordedStateVersion<S extends State>(
  agent: AgentModule<S, unknown>,
  manifest: { agent: { stateVersion?: number }; initialState?: unknown },
): void {
  const from = recordedStateVersion(manifest);
  if (from === agent.stateVersion) return;
  const initial = manifest.initialState;
  const sample = initial && typeof initial === 'object' ? structuredClone(initial as Record<string, unknown>) : {};
  migrateState(sample, from, agent.stateVersion, agent.stateMigrations, agent.name);
}
