import { z } from 'zod';
import { defineNodeConfig, type NodeConfigValue } from './define-node-config.js';
import { NodeId, commonFields } from './node-fields.js';

/**
 * Fields of a loop end marker: after the body, go round again while `while` (an expression over the variables,
 * default true) holds and the loop start's `max` is not reached; else leave by this node's edge.
 */
export const LoopEndNodeFields = z.object({
  ...commonFields,
  loop: NodeId,
  while: z.string().min(1).optional(),
});

/** A loop end marker's configuration (immutable value object). */
export const LoopEndNodeConfig = defineNodeConfig('loop-end', LoopEndNodeFields);
export type LoopEndNodeConfig = NodeConfigValue<'loop-end', z.output<typeof LoopEndNodeFields>>;
