import { z } from 'zod';
import { defineNodeConfig, type NodeConfigValue } from './define-node-config.js';
import { VariableName, commonFields } from './node-fields.js';

/** Fields of an LLM node: one model-with-tools loop (the seed's InteractionEngine) whose final text is the node's output. */
export const LLMNodeFields = z.object({
  ...commonFields,
  /** `provider:model`; default: the run's model. */
  model: z.string().min(1).optional(),
  temperature: z.number().min(0).max(2).optional(),
  maxTokens: z.number().int().positive().optional(),
  /** A `{{var}}` template. */
  systemPrompt: z.string().optional(),
  /** A `{{var}}` template: the user message of this node. */
  userPrompt: z.string().min(1),
  stream: z.boolean().default(false),
  /** `none`: no tools offered; `auto`: the model may call `availableTools`; `required`: it must call one on its first turn. */
  toolMode: z.enum(['none', 'auto', 'required']).default('none'),
  availableTools: z.array(z.string().min(1)).default([]),
  /** Model turns in the node's tool loop before it stops with what it has. */
  maxIterations: z.number().int().positive().max(1000).default(5),
  /** Summarise the thread's history before a turn when it is estimated to be over this many tokens. */
  tokenLimit: z.number().int().positive().optional(),
  /** The variable that receives the node's final text (default: the node id). */
  output: VariableName.optional(),
});

/** An LLM node's configuration (immutable value object). */
export const LLMNodeConfig = defineNodeConfig('llm', LLMNodeFields);
export type LLMNodeConfig = NodeConfigValue<'llm', z.output<typeof LLMNodeFields>>;
