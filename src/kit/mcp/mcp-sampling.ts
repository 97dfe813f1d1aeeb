import type { CreateMessageRequest, CreateMessageResult } from '@modelcontextprotocol/sdk/types.js';
import type { ModelMessage, ModelRequest, ModelResponse } from '../../core/index.js';

/**
 * Makes one model call for a server's `sampling/createMessage`. Whoever supplies it decides which model answers
 * and does the accounting: inside a run, the call goes through the run's model middleware and its tokens and
 * cost count in the run's usage and budgets.
 */
export interface McpSampler {
  /** The id of the model that answers (reported to the server when a response does not name its model). */
  readonly modelId: string;
  sample(request: ModelRequest, ctx: { server: string; signal: AbortSignal }): Promise<ModelResponse>;
}

type SamplingBlock = { type: string; text?: string; data?: string; mimeType?: string };

/**
 * The model request for a server's sampling request: its system prompt, messages (text; images and audio as
 * files of user turns), temperature and stop sequences, with `maxTokens` capped at `maxTokensCap`. The server's
 * model preferences and `includeContext` are not followed (the run's model answers, and no run context is shared).
 * Tool use inside sampling is refused, since qitos does not offer it.
 */
export function samplingRequest(params: CreateMessageRequest['params'], maxTokensCap: number): ModelRequest {
  if (params.tools?.length || params.toolChoice)
    throw new Error('sampling with tools is not supported: qitos does not offer sampling.tools');
  const messages: ModelMessage[] = params.systemPrompt ? [{ role: 'system', content: params.systemPrompt }] : [];
  for (const [i, m] of params.messages.entries()) {
    const blocks = (Array.isArray(m.content) ? m.content : [m.content]) as SamplingBlock[];
    if (m.role === 'assistant') {
      const text = blocks.map((b, j) => {
        if (b.type !== 'text' || typeof b.text !== 'string')
          throw new Error(`messages[${i}].content[${j}]: an assistant turn may only hold text, not ${b.type}`);
        return { type: 'text' as const, text: b.text };
      });
      messages.push({ role: 'assistant', content: text });
      continue;
    }
    const content = blocks.map((b, j) => {
      if (b.type === 'text' && typeof b.text === 'string') return { type: 'text' as const, text: b.text };
      if ((b.type === 'image' || b.type === 'audio') && typeof b.data === 'string') {
        const mime = b.mimeType ?? 'application/octet-stream';
        return { type: 'file' as const, mime, url: `data:${mime};base64,${b.data}` };
      }
      throw new Error(`messages[${i}].content[${j}]: content of type ${b.type} is not supported in sampling`);
    });
    messages.push({ role: 'user', content });
  }
  return {
    messages,
    maxOutputTokens: Math.max(1, Math.min(params.maxTokens, maxTokensCap)),
    ...(params.temperature !== undefined ? { temperature: params.temperature } : {}),
    ...(params.stopSequences?.length ? { stop: params.stopSequences } : {}),
  };
}

/** The `sampling/createMessage` result for a model response: its text, the model's id and why it stopped. */
export function samplingResult(response: ModelResponse, modelId: string): CreateMessageResult {
  const text = response.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
  const stopReason =
    response.finishReason === 'stop'
      ? 'endTurn'
      : response.finishReason === 'length'
        ? 'maxTokens'
        : response.finishReason;
  return { role: 'assistant', content: { type: 'text', text }, model: response.modelId ?? modelId, stopReason };
}
