import { totalTokens, type StopReason, type Usage } from '../core/index.js';

/** Usage as OpenAI reports it: prompt tokens include cache reads and writes; completion tokens include reasoning. */
export interface OpenAIUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
  completion_tokens_details: { reasoning_tokens: number };
}

/** A run's usage in OpenAI's shape. */
export function openAIUsage(usage: Usage): OpenAIUsage {
  const t = usage.tokens;
  const prompt = t.input + t.cache.read + t.cache.write;
  return {
    prompt_tokens: prompt,
    completion_tokens: totalTokens(t) - prompt,
    total_tokens: totalTokens(t),
    prompt_tokens_details: { cached_tokens: t.cache.read },
    completion_tokens_details: { reasoning_tokens: t.reasoning },
  };
}

/**
 * How a run's end reads to an OpenAI client: `stop` when the agent answered or its own condition ended the run,
 * `length` when a budget or the context ran out, `error` for runs that failed or were interrupted (the server
 * answers those with an error, not a completion).
 */
export function finishReason(reason: StopReason): 'stop' | 'length' | 'error' {
  switch (reason) {
    case 'final':
    case 'agent_condition':
    case 'env_terminal':
    case 'doom_loop':
    case 'critic_stop':
      return 'stop';
    case 'budget_steps':
    case 'budget_time':
    case 'budget_tokens':
    case 'budget_cost':
    case 'context_overflow':
      return 'length';
    case 'interrupted':
    case 'task_invalid':
    case 'env_capability_mismatch':
    case 'unrecoverable_error':
      return 'error';
  }
}

/** The fields every chunk of one streamed completion shares. */
export interface ChunkHead {
  id: string;
  created: number;
  model: string;
}

/**
 * The SSE frames (`data: <chunk JSON>\n\n`) of one streamed completion. The fields every chunk shares are
 * serialized once per response, so a frame costs one `JSON.stringify` of its delta; `usage` is present (null
 * until the last chunk) only when the client asked for it. `system_fingerprint` is left out: OpenAI's spec types
 * it as a string, and there is no backend configuration to name.
 */
export class ChunkFrames {
  private readonly head: string;
  private readonly tail: string;

  constructor(head: ChunkHead, withUsage: boolean) {
    this.head =
      `data: ` +
      `{"id":${JSON.stringify(head.id)},"object":"chat.completion.chunk","created":${JSON.stringify(head.created)},"model":${JSON.stringify(head.model)},"choices":`;
    this.tail = withUsage ? ',"usage":null}\n\n' : '}\n\n';
  }

  /** A chunk with one choice holding `delta` and its finish reason. */
  delta(delta: Record<string, string>, finish: 'stop' | 'length' | null = null): string {
    return `${this.head}[{"index":0,"delta":${JSON.stringify(delta)},"logprobs":null,"finish_reason":${JSON.stringify(finish)}}]${this.tail}`;
  }

  /** The last chunk when the client asked for usage: no choices, the run's usage. */
  usage(usage: Usage): string {
    return `${this.head}[],"usage":${JSON.stringify(openAIUsage(usage))}}\n\n`;
  }
}

/** A whole `chat.completion` (non-streamed). */
export function completion(
  head: ChunkHead,
  content: string,
  reasoning: string,
  finish: 'stop' | 'length',
  usage: Usage,
): Record<string, unknown> {
  const message = { role: 'assistant', content, refusal: null, ...(reasoning ? { reasoning_content: reasoning } : {}) };
  return {
    id: head.id,
    object: 'chat.completion',
    created: head.created,
    model: head.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finish }],
    usage: openAIUsage(usage),
  };
}
