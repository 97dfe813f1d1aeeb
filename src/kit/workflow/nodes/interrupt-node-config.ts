import { z } from 'zod';
import { defineNodeConfig, type NodeConfigValue } from './define-node-config.js';
import { VariableName, commonFields } from './node-fields.js';

/** Fields of an interrupt node: wait for a human to give `variable` a value (asked with `prompt`, a `{{var}}` template). */
export const InterruptNodeFields = z.object({
  ...commonFields,
  prompt: z.string().min(1),
  variable: VariableName,
});

/** An interrupt node's configuration (immutable value object). */
export const InterruptNodeConfig = defineNodeConfig('interrupt', InterruptNodeFields);
export type InterruptNodeConfig = NodeConfigValue<'interrupt', z.output<typeof InterruptNodeFields>>;
