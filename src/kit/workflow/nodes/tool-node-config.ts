import { z } from 'zod';
import { defineNodeConfig, type NodeConfigValue } from './define-node-config.js';
import { VariableName, commonFields } from './node-fields.js';

/** Fields of a tool node: one call of a registered tool with `{{var}}` arguments. */
export const ToolNodeFields = z.object({
  ...commonFields,
  toolName: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'a tool id is 1-64 characters of [a-zA-Z0-9_-]'),
  /**
   * The call's arguments. A string that is exactly `{{name}}` becomes the variable's value (any type); a string
   * with `{{name}}` inside is rendered as text; other values pass as they are (nested objects and lists too).
   */
  parameters: z.record(z.string(), z.unknown()).default({}),
  timeoutMs: z.number().int().positive().optional(),
  /** Further attempts after a failed call. */
  retries: z.number().int().min(0).max(100).default(0),
  /** After the last attempt failed: stop the workflow (`fail`) or record the error and go on (`continue`). */
  onError: z.enum(['fail', 'continue']).default('fail'),
  /**
   * An expression (the `qitos-ts/expr` language) over the call's `output`, `title` and `metadata` whose value the
   * variable receives instead of the output text, e.g. `metadata.value` for calculate's number.
   */
  extract: z.string().min(1).optional(),
  /** The variable that receives the tool's output (default: the node id). */
  output: VariableName.optional(),
});

/** A tool node's configuration (immutable value object). */
export const ToolNodeConfig = defineNodeConfig('tool', ToolNodeFields);
export type ToolNodeConfig = NodeConfigValue<'tool', z.output<typeof ToolNodeFields>>;
