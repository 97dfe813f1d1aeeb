import { z } from 'zod';
import { defineNodeConfig, type NodeConfigValue } from './define-node-config.js';
import { VariableName, commonFields } from './node-fields.js';

/** The token estimate over which an LLM node summarises its thread first, unless it sets `tokenLimit`. */
export const DEFAULT_TOKEN_LIMIT = 80_000;

/** Fields of an LLM node: one model-with-tools loop whose final text is the node's output. */
export const LLMNodeFields = z
  .object({
    ...commonFields,
    /**
     * The provider, as a workflow's `LLMNodeConfig` names it (`openai`, `anthropic`, `deepseek`, ...); then `model`
     * is the provider's own model name (`gpt-4o`, `llama3:8b`). Without it, `model` is `provider:model`.
     */
    provider: z
      .string()
      .regex(/^[a-z][a-z0-9-]{0,63}$/, 'a provider is a lowercase name such as "openai" or "openai-compatible"')
      .optional(),
    /** `provider:model`, or the model name when `provider` is set; default: the run's model. */
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
    /**
     * Summarise the thread's history (round by round) before a turn when the estimate (characters / 2.5)
     * of the context plus the node's turns is over this many tokens.
     */
    tokenLimit: z.number().int().positive().default(DEFAULT_TOKEN_LIMIT),
    /** The variable that receives the node's final text (default: the node id). */
    output: VariableName.optional(),
  })
  .superRefine((n, ctx) => {
    if (n.provider !== undefined && n.model === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['model'],
        message: `provider "${n.provider}" needs a model (the provider's model name, e.g. model: gpt-4o)`,
      });
    if (n.provider !== undefined && n.model?.startsWith(`${n.provider}:`))
      ctx.addIssue({
        code: 'custom',
        path: ['model'],
        message:
          `"${n.model}" names the provider again; with provider: ${n.provider}, write ` +
          `model: ${n.model.slice(n.provider.length + 1)}`,
      });
  });

/** An LLM node's configuration (immutable value object). */
export const LLMNodeConfig = defineNodeConfig('llm', LLMNodeFields);
export type LLMNodeConfig = NodeConfigValue<'llm', z.output<typeof LLMNodeFields>>;

/** The `provider:model` id an LLM node names (its `provider` and `model`, or its `model` alone), if any. */
export function llmNodeModelId(node: { provider?: string; model?: string }): string | undefined {
  if (node.model === undefined) return undefined;
  return node.provider !== undefined ? `${node.provider}:${node.model}` : node.model;
}
