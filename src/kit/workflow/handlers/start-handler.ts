import { computedHandler, done } from './computed-work.js';
import type { NodeOf } from './node-handler.js';

/** A start node: goes on by its one edge. */
export const startHandler = computedHandler<NodeOf<'start'>>((node, s) => done({}, {}, s.next(node)));
