import { z } from 'zod';

/** A node id: what edges, conditions and joins refer to, and the key of the node's record in the thread state. */
export const NodeId = z
  .string()
  .regex(
    /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/,
    'a node id is 1-64 characters of [A-Za-z0-9_.-], not starting with "." or "-"',
  );

/** A variable name (what `{{name}}` and expressions read). */
export const VariableName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'a variable name is a letter or "_" then letters, digits or "_"');

/** Fields every node has: its id, an optional description, and (for nodes that produce a value) where it goes. */
export const commonFields = {
  id: NodeId,
  description: z.string().optional(),
};

/**
 * What a node does when its work fails: stop the workflow (`fail`), record the error and go on (`continue`),
 * or try again up to `retries` times and then fail (`retry`).
 */
export const ErrorPolicy = z.strictObject({
  mode: z.enum(['fail', 'continue', 'retry']).default('fail'),
  retries: z.number().int().min(0).max(100).default(0),
});
export type ErrorPolicy = z.infer<typeof ErrorPolicy>;
