import { z } from 'zod';
import { defineNodeConfig, type NodeConfigValue } from './define-node-config.js';
import { NodeId, VariableName, commonFields } from './node-fields.js';

/**
 * Fields of a join marker: merges the variables the branches of `fork` set. `all`: one object keyed by branch
 * (its first node id) in the `output` variable; `first`: the first branch to finish sets its variables;
 * `custom`: the reducer registered under `reducer` on the WorkflowAgent decides.
 */
export const JoinNodeFields = z
  .object({
    ...commonFields,
    fork: NodeId,
    merge: z.enum(['all', 'first', 'custom']).default('all'),
    reducer: z.string().min(1).optional(),
    /** For `all` and `custom`: the variable that receives the merged value (default: the node id). */
    output: VariableName.optional(),
  })
  .refine((j) => j.merge !== 'custom' || j.reducer !== undefined, {
    message: 'a custom merge needs the name of a registered reducer',
    path: ['reducer'],
  });

/** A join marker's configuration (immutable value object). */
export const JoinNodeConfig = defineNodeConfig('join', JoinNodeFields);
export type JoinNodeConfig = NodeConfigValue<'join', z.output<typeof JoinNodeFields>>;
