import { QitosError } from './errors.js';

/**
 * One step of an agent's state schema history: turns a state written under version `from` into version `to`
 * (`to` > `from`). An agent lists its migrations (`static stateMigrations` or the `stateMigrations` option); replay,
 * resume and fork run them on a recorded state before the agent sees it.
 */
export interface StateMigration {
  from: number;
  to: number;
  /** The state as version `to` has it (a plain JSON object in, a plain JSON object out; may reuse its input). */
  migrate(state: Record<string, unknown>): Record<string, unknown>;
}

/**
 * A state recorded under version `from` brought to version `to` by chaining `migrations` (the one starting at each
 * version, in turn). Throws a QitosError naming the agent and both versions when there is no way there: a state
 * newer than the agent's, or a version no migration starts from.
 */
export function migrateState(
  state: Record<string, unknown>,
  from: number,
  to: number,
  migrations: readonly StateMigration[],
  agent: string,
): Record<string, unknown> {
  if (from === to) return state;
  if (from > to)
    throw new QitosError(
      'internal',
      `the recorded state is version ${from} of ${agent}'s state schema, newer than this ` +
        `agent's version ${to}: use the agent that wrote it`,
    );
  let out = state;
  let at = from;
  while (at < to) {
    const step = migrations.find((m) => m.from === at && m.to > at && m.to <= to);
    if (!step) {
      const known = migrations.map((m) => `${m.from}->${m.to}`).join(', ') || 'none';
      throw new QitosError(
        'internal',
        `the recorded state is version ${from} of ${agent}'s state schema and this agent reads ` +
          `version ${to}, but no migration starts at version ${at} (registered: ${known})`,
      );
    }
    out = step.migrate(out);
    if (!out || typeof out !== 'object' || Array.isArray(out))
      throw new QitosError(
        'internal',
        `${agent}'s state migration ${step.from}->${step.to} returned ${Array.isArray(out) ? 'an array' : typeof out}, not a state object`,
      );
    at = step.to;
  }
  return out;
}
