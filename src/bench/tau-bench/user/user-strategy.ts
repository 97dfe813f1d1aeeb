import { LlmUser } from './llm-user.js';
import { ReactUser } from './react-user.js';
import { ReflectionUser } from './reflection-user.js';
import { ScriptedUser } from './scripted-user.js';
import type { UserSimulator } from './user-simulator.js';
import { VerifyUser } from './verify-user.js';

/** The user strategies: the original's (`human` aside: a bench run has no keyboard) and `scripted`. */
export const USER_STRATEGIES = ['llm', 'react', 'verify', 'reflection', 'scripted'] as const;
export type UserStrategy = (typeof USER_STRATEGIES)[number];

/** Whether a string names a user strategy. */
export function isUserStrategy(name: string): name is UserStrategy {
  return (USER_STRATEGIES as readonly string[]).includes(name);
}

/** A fresh simulator of a strategy (one per trial: it holds the conversation). `lines` are the scripted user's. */
export function createUserSimulator(strategy: string, options: { lines?: readonly string[] } = {}): UserSimulator {
  switch (strategy) {
    case 'llm':
      return new LlmUser();
    case 'react':
      return new ReactUser();
    case 'verify':
      return new VerifyUser();
    case 'reflection':
      return new ReflectionUser();
    case 'scripted':
      return new ScriptedUser(options.lines);
    default:
      throw new Error(
        `unknown user strategy "${strategy}": use one of ${USER_STRATEGIES.join(', ')} (the ` +
          `original's "human" needs a keyboard, not a bench run)`,
      );
  }
}
