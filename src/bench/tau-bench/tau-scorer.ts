import type { Scorer } from '../index.js';
import { TauEnv } from './tau-env.js';

/** The original's success test (`run.py`'s `is_successful`): a reward within 1e-6 of 1. */
export function isTauSuccess(reward: number): boolean {
  return reward >= 1 - 1e-6 && reward <= 1 + 1e-6;
}

/**
 * tau-bench's reward as a bench scorer: the env's session scored as the original's `calculate_reward` (the final
 * database's hash against the ground truth's, and the required outputs in the agent's messages). As in the
 * original, an episode that did not end (no ###STOP###, no terminate tool: the step budget ran out, or the run
 * failed) gets reward 0. The result line's `details` record `reward`, the final `dbHash` and the rest of the reward.
 */
export function tauScorer(): Scorer {
  return {
    name: 'tau-bench-reward',
    score({ env }) {
      if (!(env instanceof TauEnv))
        throw new Error(
          `the tau-bench scorer needs the trial's TauEnv; the trial ran in ${env ? `env "${env.name}"` : 'no env'}`,
        );
      if (!env.isTerminal()) {
        const dbHash = env.session.dbHash();
        return {
          score: 0,
          pass: false,
          explanation:
            'reward 0: the episode did not end (the customer never said ###STOP### and no terminate tool ran)',
          details: { reward: 0, dbHash, ended: null, userStrategy: env.user.strategy },
        };
      }
      const r = env.reward();
      const missing = Object.entries(r.outputs ?? {})
        .filter(([, found]) => !found)
        .map(([o]) => o);
      const why = [
        r.rActions
          ? 'database matches the ground truth'
          : `database differs from the ground truth (${r.dbHash.slice(0, 12)} vs ${r.gtDbHash.slice(0, 12)})`,
      ];
      if (r.outputs)
        why.push(
          missing.length
            ? `outputs missing: ${missing.map((o) => JSON.stringify(o)).join(', ')}`
            : 'all required outputs given',
        );
      return {
        score: Math.max(0, Math.min(1, r.reward)),
        pass: isTauSuccess(r.reward),
        explanation:
          `reward ${r.reward}: ${why.join('; ')} (episode ended by ` +
          `the ${env.endedBy === 'user' ? 'customer' : 'terminate tool'})`,
        details: {
          reward: r.reward,
          dbHash: r.dbHash,
          gtDbHash: r.gtDbHash,
          rActions: r.rActions,
          ...(r.outputs ? { outputs: r.outputs, rOutputs: r.rOutputs } : {}),
          ended: env.endedBy,
          userStrategy: env.user.strategy,
        },
      };
    },
  };
}
