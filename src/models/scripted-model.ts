import type {
  FinishReason,
  GenerateOptions,
  Model,
  ModelInfo,
  ModelRequest,
  ModelResponse,
  ModelStreamEvent,
  ResponsePart,
  Tokens,
} from '../core/index.js';
import { AbortedError, QitosError, emptyTokens, pendingOf } from '../core/index.js';
import { parseJsonObject } from './parse-json-object.js';

/** One scripted reply: plain text, a full reply, an error to throw, or a function of the request. */
export type ScriptReply =
  | string
  | {
      text?: string;
      reasoning?: string;
      toolCalls?: Array<{ name: string; args?: Record<string, unknown>; input?: string; id?: string }>;
      usage?: Partial<Omit<Tokens, 'cache'>> & { cache?: Partial<Tokens['cache']> };
      cost?: number | null;
      finishReason?: FinishReason;
      /** Wait this long before replying (abortable). */
      delayMs?: number;
      /** Throw this instead of replying (e.g. a ModelError to test RECOVER). */
      error?: Error;
    }
  | ((request: ModelRequest, index: number) => Exclude<ScriptReply, (...a: never[]) => unknown>);

/** Options of a ScriptedModel. */
export interface ScriptedModelOptions {
  id?: string;
  info?: Partial<ModelInfo>;
  /** Keep every request in `requests` (default true; benchmarks turn it off). */
  recordRequests?: boolean;
  /** Start over when the script runs out, instead of failing. */
  loop?: boolean;
  /** Stream text in chunks of this many characters (default: one chunk). */
  chunkSize?: number;
}

/**
 * A model that replies from a script, streams its replies as real providers do, and records every request.
 * When the script runs out it fails loudly (an internal error ends the run) unless `loop` is set.
 */
export class ScriptedModel implements Model {
  readonly id: string;
  readonly info: ModelInfo;
  readonly requests: ModelRequest[] = [];
  private index = 0;
  private callSeq = 0;

  constructor(
    private readonly script: ScriptReply[],
    private readonly options: ScriptedModelOptions = {},
  ) {
    if (!Array.isArray(script))
      throw new TypeError(`ScriptedModel: the script must be an array of replies, got ${typeof script}`);
    // a negative size would never advance through the text: the stream would not end
    if (options.chunkSize !== undefined && !(Number.isInteger(options.chunkSize) && options.chunkSize > 0)) {
      throw new RangeError(`ScriptedModel: chunkSize must be a positive integer, got ${String(options.chunkSize)}`);
    }
    this.id = options.id ?? 'scripted:script';
    const [provider, ...rest] = this.id.split(':');
    this.info = { provider, model: rest.join(':') || provider, ...options.info };
  }

  /** How many replies were served. */
  get served(): number {
    return this.index;
  }

  async generate(request: ModelRequest, options: GenerateOptions = {}): Promise<ModelResponse> {
    if (this.options.recordRequests !== false) this.requests.push(request);
    if (this.index >= this.script.length) {
      if (!this.options.loop || this.script.length === 0)
        throw new QitosError(
          'internal',
          `ScriptedModel script exhausted: it has ${this.script.length} replies and request #${this.index + 1} asked for another`,
        );
      this.index = 0;
    }
    const i = this.index++;
    let reply = this.script[i];
    if (typeof reply === 'function') reply = reply(request, i);
    const r = typeof reply === 'string' ? { text: reply } : reply;
    if (r.delayMs) await sleep(r.delayMs, options.signal);
    if (options.signal?.aborted) throw new AbortedError('model call aborted');
    if (r.error) throw r.error;

    const events: ModelStreamEvent[] = [];
    const emit = (event: ModelStreamEvent) => events.push(event);
    const parts: ResponsePart[] = [];
    emit({ type: 'step-start' });
    if (r.reasoning !== undefined) {
      const id = `rs_${i}`;
      const start = Date.now();
      emit({ type: 'reasoning-start', id });
      for (const c of chunks(r.reasoning, this.options.chunkSize)) emit({ type: 'reasoning-delta', id, delta: c });
      emit({ type: 'reasoning-end', id });
      parts.push({ type: 'reasoning', text: r.reasoning, time: { start, end: Date.now() } });
    }
    if (r.text !== undefined) {
      for (const c of chunks(r.text, this.options.chunkSize)) emit({ type: 'text-delta', delta: c });
      parts.push({ type: 'text', text: r.text });
    }
    for (const call of r.toolCalls ?? []) {
      const callId = call.id ?? `sc_${(this.callSeq++).toString(36)}`;
      const input = call.input ?? JSON.stringify(call.args ?? {});
      emit({ type: 'tool-input-start', callId, name: call.name });
      for (const c of chunks(input, this.options.chunkSize)) emit({ type: 'tool-input-delta', callId, delta: c });
      emit({ type: 'tool-call', callId, name: call.name, input });
      const args = parseJsonObject(input);
      parts.push({ type: 'tool-call', callId, name: call.name, input, ...(args ? { args } : {}) });
    }
    const e = emptyTokens();
    const usage: Tokens = {
      input: r.usage?.input ?? e.input,
      output: r.usage?.output ?? Math.ceil(((r.text?.length ?? 0) + (r.reasoning?.length ?? 0)) / 4),
      reasoning: r.usage?.reasoning ?? Math.ceil((r.reasoning?.length ?? 0) / 4),
      cache: { read: r.usage?.cache?.read ?? 0, write: r.usage?.cache?.write ?? 0 },
    };
    const finishReason = r.finishReason ?? (r.toolCalls?.length ? 'tool-calls' : 'stop');
    const cost = r.cost === undefined ? 0 : r.cost;
    emit({ type: 'step-finish', finishReason, usage, cost });
    // A listener's promise (a slow stream consumer) is waited for before the next event, as a network stream would.
    const listener = options.onEvent;
    if (listener) {
      for (const e of events) {
        const wait = pendingOf(listener(e));
        if (wait) await wait;
      }
    }
    return { parts, usage, cost, finishReason, modelId: this.id };
  }
}

function* chunks(text: string, size: number | undefined): Generator<string> {
  if (!size || text.length <= size) {
    if (text) yield text;
    return;
  }
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new AbortedError('model call aborted'));
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(new AbortedError('model call aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
