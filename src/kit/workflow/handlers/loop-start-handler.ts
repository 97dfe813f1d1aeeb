import { computedHandler, done } from './computed-work.js';
import type { NodeOf } from './node-handler.js';

/** A loop start: enters the body (its one edge); the round count starts at its first visit. */
export const loopStartHandler = computedHandler<NodeOf<'loop-start'>>((node, s) =>
  done(
    { max: node.max },
    { round: (s.thread.loops[node.id] ?? 0) + 1 },
    s.next(node),
    (t) => void (t.loops[node.id] ??= 0),
  ),
);
