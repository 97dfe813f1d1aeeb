import type { FinishReason, ModelResponse, ResponsePart, StreamListener, Tokens } from '../core/index.js';
import { pendingOf } from '../core/index.js';
import { parseJsonObject } from './parse-json-object.js';

type ReasoningPart = Extract<ResponsePart, { type: 'reasoning' }>;
type ToolCallPart = Extract<ResponsePart, { type: 'tool-call' }>;

/**
 * Assembles a streamed reply into ResponseParts (in arrival order) and emits the matching stream events.
 * `step-start` is emitted lazily, right before the first content event, so an attempt that fails before
 * producing anything can be retried without the listener seeing a half step. A listener that returns a
 * promise (a slow consumer) is waited for through `settle()` between the provider's chunks.
 */
export class ResponseBuilder {
  readonly parts: ResponsePart[] = [];
  private started = false;
  private pending: PromiseLike<unknown> | undefined;
  private text: Extract<ResponsePart, { type: 'text' }> | undefined;
  private reasoning: { id: string; part: ReasoningPart } | undefined;
  private reasoningCount = 0;
  private readonly tools = new Map<string, { part: ToolCallPart; done: boolean }>();

  constructor(private readonly listener: StreamListener | undefined) {}

  /** True once any content event was emitted. */
  get hasOutput(): boolean {
    return this.started;
  }

  /** What the listener still has to take in (undefined when it keeps up): the provider awaits it before it reads on. */
  readonly settle = (): PromiseLike<unknown> | undefined => {
    const p = this.pending;
    this.pending = undefined;
    return p;
  };

  private emit(event: Parameters<StreamListener>[0]): void {
    const r = pendingOf(this.listener?.(event));
    if (r) this.pending = this.pending ? this.pending.then(() => r) : r;
  }

  private out(event: Parameters<StreamListener>[0]): void {
    if (!this.started) {
      this.started = true;
      this.emit({ type: 'step-start' });
    }
    this.emit(event);
  }

  textDelta(delta: string): void {
    if (!delta) return;
    this.endReasoning();
    if (!this.text) {
      this.text = { type: 'text', text: '' };
      this.parts.push(this.text);
    }
    this.text.text += delta;
    this.out({ type: 'text-delta', delta });
  }

  /** A piece of reasoning; opens a reasoning block when none is open. */
  reasoningDelta(delta: string): void {
    if (!delta) return;
    const r = this.openReasoning();
    r.part.text += delta;
    this.out({ type: 'reasoning-delta', id: r.id, delta });
  }

  /** Opens a reasoning block (Anthropic announces blocks before their deltas). */
  openReasoning(): { id: string; part: ReasoningPart } {
    if (this.reasoning) return this.reasoning;
    this.text = undefined;
    const id = `rs_${this.reasoningCount++}`;
    const part: ReasoningPart = { type: 'reasoning', text: '', time: { start: Date.now(), end: Date.now() } };
    this.parts.push(part);
    this.reasoning = { id, part };
    this.out({ type: 'reasoning-start', id });
    return this.reasoning;
  }

  /** Sets the signature of the open reasoning block (Anthropic sends it as the block's last delta). */
  reasoningSignature(signature: string): void {
    const r = this.openReasoning();
    r.part.signature = (r.part.signature ?? '') + signature;
  }

  /** Closes the open reasoning block, if any. */
  endReasoning(): void {
    const r = this.reasoning;
    if (!r) return;
    this.reasoning = undefined;
    r.part.time = { start: r.part.time!.start, end: Date.now() };
    this.out({ type: 'reasoning-end', id: r.id, ...(r.part.signature ? { signature: r.part.signature } : {}) });
  }

  /** A redacted (encrypted) reasoning block: kept opaque so it can be passed back unchanged. */
  redactedReasoning(data: string): void {
    this.endReasoning();
    this.text = undefined;
    const id = `rs_${this.reasoningCount++}`;
    const now = Date.now();
    this.parts.push({ type: 'reasoning', text: '', signature: data, redacted: true, time: { start: now, end: now } });
    this.out({ type: 'reasoning-start', id });
    this.out({ type: 'reasoning-end', id, signature: data });
  }

  /** A tool call begins. */
  toolStart(callId: string, name: string): void {
    this.endReasoning();
    this.text = undefined;
    const part: ToolCallPart = { type: 'tool-call', callId, name, input: '' };
    this.parts.push(part);
    this.tools.set(callId, { part, done: false });
    this.out({ type: 'tool-input-start', callId, name });
  }

  /** A piece of a tool call's JSON input. */
  toolDelta(callId: string, delta: string): void {
    const t = this.tools.get(callId);
    if (!t || !delta) return;
    t.part.input += delta;
    this.out({ type: 'tool-input-delta', callId, delta });
  }

  /** The tool call is complete: parse its input. Malformed JSON keeps `input` raw and leaves `args` unset for the parser to report. */
  toolEnd(callId: string): void {
    const t = this.tools.get(callId);
    if (!t || t.done) return;
    t.done = true;
    const args = parseArgs(t.part.input);
    if (args) t.part.args = args;
    this.out({ type: 'tool-call', callId, name: t.part.name, input: t.part.input });
  }

  /** Whether a call id was seen. */
  hasTool(callId: string): boolean {
    return this.tools.has(callId);
  }

  /** Ends the step: closes open blocks, emits `step-finish`, returns the reply. */
  finish(finishReason: FinishReason, usage: Tokens, cost: number | null, modelId: string): ModelResponse {
    this.endReasoning();
    for (const id of this.tools.keys()) this.toolEnd(id);
    if (!this.started) {
      this.started = true;
      this.emit({ type: 'step-start' });
    }
    this.emit({ type: 'step-finish', finishReason, usage, cost });
    return { parts: this.parts, usage, cost, finishReason, modelId };
  }
}

/** The arguments object of a tool call, or undefined when the input is not a JSON object. An empty input means no arguments. */
export function parseArgs(input: string): Record<string, unknown> | undefined {
  return input.trim() ? parseJsonObject(input) : {};
}
