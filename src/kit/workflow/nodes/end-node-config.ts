import { z } from 'zod';
import { defineNodeConfig, type NodeConfigValue } from './define-node-config.js';
import { commonFields } from './node-fields.js';

/** Fields of an end marker: reaching it ends the workflow with `result` (a `{{var}}` template) as the final answer. */
export const EndNodeFields = z.object({
  ...commonFields,
  /** The final answer template (default: the variables as JSON). */
  result: z.string().optional(),
});

/** An end marker's configuration (immutable value object). */
export const EndNodeConfig = defineNodeConfig('end', EndNodeFields);
export type EndNodeConfig = NodeConfigValue<'end', z.output<typeof EndNodeFields>>;
