import { z } from 'zod';
import { defineNodeConfig, type NodeConfigValue } from './define-node-config.js';
import { NodeId, commonFields } from './node-fields.js';

/**
 * Fields of a condition node: `expression` (the safe expression language of `qitos-ts/expr`, over the
 * variables; no eval) must give true or false, and the workflow goes on at `then` or `else`.
 */
export const ConditionNodeFields = z.object({
  ...commonFields,
  expression: z.string().min(1),
  then: NodeId,
  else: NodeId,
});

/** A condition node's configuration (immutable value object). */
export const ConditionNodeConfig = defineNodeConfig('condition', ConditionNodeFields);
export type ConditionNodeConfig = NodeConfigValue<'condition', z.output<typeof ConditionNodeFields>>;
