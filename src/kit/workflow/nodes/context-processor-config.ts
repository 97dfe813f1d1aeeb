import { z } from 'zod';
import { defineNodeConfig, type NodeConfigValue } from './define-node-config.js';
import { commonFields } from './node-fields.js';

/** The processors every workflow has; any other name must be registered on the WorkflowAgent that runs it. */
export const BUILTIN_PROCESSORS = ['summarise', 'trim', 'truncate-tool-outputs'] as const;

/** Fields of a context-processor node: rewrites the thread's message history between LLM nodes. */
export const ContextProcessorFields = z.object({
  ...commonFields,
  /** `summarise` (`{ keepLast? }`), `trim` (`{ keepLast }`), `truncate-tool-outputs` (`{ maxChars }`), or a registered custom name. */
  processor: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'a processor name is 1-64 characters of [A-Za-z0-9_.-]'),
  config: z.record(z.string(), z.unknown()).default({}),
});

/** A context processor node's configuration (immutable value object). */
export const ContextProcessorConfig = defineNodeConfig('context', ContextProcessorFields);
export type ContextProcessorConfig = NodeConfigValue<'context', z.output<typeof ContextProcessorFields>>;
