import { z } from 'zod';
import { defineNodeConfig, type NodeConfigValue } from './define-node-config.js';
import { VariableName, commonFields } from './node-fields.js';

/**
 * Fields of a subworkflow node: another workflow, from a file (`path`, relative to the parent's file) or
 * written inline (`inline`, the same shape as a workflow file), run as a child thread with the variables.
 */
export const SubworkflowNodeFields = z
  .object({
    ...commonFields,
    path: z.string().min(1).optional(),
    inline: z.record(z.string(), z.unknown()).optional(),
    /** The variable that receives the child's final variables (default: the node id). */
    output: VariableName.optional(),
  })
  .refine((s) => (s.path === undefined) !== (s.inline === undefined), {
    message: 'give exactly one of path and inline',
    path: ['path'],
  });

/** A subworkflow node's configuration (immutable value object). */
export const SubworkflowNodeConfig = defineNodeConfig('subworkflow', SubworkflowNodeFields);
export type SubworkflowNodeConfig = NodeConfigValue<'subworkflow', z.output<typeof SubworkflowNodeFields>>;
