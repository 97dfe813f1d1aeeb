import { z } from 'zod';
import { defineNodeConfig, type NodeConfigValue } from './define-node-config.js';
import { commonFields } from './node-fields.js';

/** Fields of a loop start marker: the body runs from its one successor to the matching loop end, at most `max` times. */
export const LoopStartNodeFields = z.object({
  ...commonFields,
  max: z.number().int().positive().max(100_000),
});

/** A loop start marker's configuration (immutable value object). */
export const LoopStartNodeConfig = defineNodeConfig('loop-start', LoopStartNodeFields);
export type LoopStartNodeConfig = NodeConfigValue<'loop-start', z.output<typeof LoopStartNodeFields>>;
