import type { ModelInfo } from '../../core/index.js';

/** Largest output reserve taken by default (opencode's cap). */
export const MAX_DEFAULT_RESERVE = 20_000;
/** Share of the window reserved when the model's output limit is unknown or bogus. */
export const FALLBACK_RESERVE_SHARE = 0.2;

/** The token limits a compaction works with. */
export interface ContextLimits {
  contextWindow: number;
  /** Tokens kept free for the model's reply. */
  reserve: number;
  /** `contextWindow - reserve`: the history (plus system prompt) must stay below this. */
  usable: number;
  /** Where the reserve came from. */
  reserveFrom: 'option' | 'max_output' | 'fallback';
}

/**
 * usable = context window - reserve. The reserve is `reserve` when given, else min(20,000, the model's output
 * limit). A missing output limit, or one that is not below the window (some catalogues list the window as the
 * output limit), would leave no room or a negative one; such models get 20% of the window, capped at 20,000.
 * A reserve never exceeds half the window, so usable is always positive.
 */
export function contextLimits(
  options: { contextWindow?: number; maxOutput?: number; reserve?: number },
  info?: ModelInfo,
): ContextLimits | undefined {
  const window = options.contextWindow ?? info?.contextWindow;
  if (window === undefined || !Number.isFinite(window) || window <= 0) return undefined;
  const maxOutput = options.maxOutput ?? info?.maxOutputTokens;
  let reserve: number;
  let reserveFrom: ContextLimits['reserveFrom'];
  if (options.reserve !== undefined) {
    reserve = options.reserve;
    reserveFrom = 'option';
  } else if (maxOutput !== undefined && Number.isFinite(maxOutput) && maxOutput > 0 && maxOutput < window) {
    reserve = Math.min(MAX_DEFAULT_RESERVE, maxOutput);
    reserveFrom = 'max_output';
  } else {
    reserve = Math.min(MAX_DEFAULT_RESERVE, Math.ceil(window * FALLBACK_RESERVE_SHARE));
    reserveFrom = 'fallback';
  }
  reserve = Math.min(Math.max(0, Math.floor(reserve)), Math.floor(window / 2));
  return { contextWindow: window, reserve, usable: window - reserve, reserveFrom };
}
