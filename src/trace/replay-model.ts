import { z } from 'zod';
import type {
  EventRecord,
  GenerateOptions,
  Model,
  ModelInfo,
  ModelRequest,
  ModelResponse,
  ModelStreamEvent,
  RequestHashes,
  StepRecord,
} from '../core/index.js';
import { ModelError, ModelResponse as ModelResponseSchema, canonicalJson, pendingOf } from '../core/index.js';
import { shortHash } from './short-hash.js';
import { sideCallHashes, type SideCallHashes } from './side-call-hashes.js';
import { DRIFT_PART_NAMES, ReplayDriftError, type DriftPart, type ReplayDrift } from './replay-drift.js';
import { jsonDiffText, unifiedTextDiff } from './text-diff.js';
import { traceTexts, type TraceTexts } from './trace-texts.js';

/** The recorded hashes of a side call's request. */
const SideHashes = z.object({ system: z.string(), messages: z.string(), tools: z.string(), params: z.string() });

/** One recorded model call: a response, or the model error the call ended with. */
type RecordedCall =
  | { step: number; kind: 'response'; hashes: RequestHashes; response: ModelResponse }
  | { step: number; kind: 'error'; errorKind: string; message: string };

/** Options of a ReplayModel. */
export interface ReplayModelOptions {
  /** Model id to report (default: the recorded model's id, so the replay's manifest names the same model). */
  id: string;
  info?: ModelInfo;
  /** Serve the recorded response even when the request differs from the recorded one (the drift is still listed). */
  allowDrift?: boolean;
  /**
   * The trace's events: the `model_call` events of calls made besides the steps' own (`callModel`, purpose other
   * than `decide`) are served, in order per purpose, to the calls of the same purpose.
   */
  events?: readonly EventRecord[];
}

/** A recorded call that was not a step's own: its response, or the error it ended with. */
type RecordedExtra = ({ step: number; response: ModelResponse } | { step: number; error: string }) & {
  hashes?: SideCallHashes;
};

const MODEL_ERROR_KINDS: Record<string, ConstructorParameters<typeof ModelError>[0]> = {
  model_transport: 'transport',
  model_request: 'bad_request',
  context_overflow: 'context_overflow',
};

/**
 * A model that serves a trace's recorded model outputs in order. Before serving each one it compares the
 * live request's hashes (system prompt, messages, tool schemas, params) with the recorded ones; on a
 * difference it throws a ReplayDriftError naming the step and the parts, unless `allowDrift`. A recorded
 * model error (e.g. a transport failure the run recovered from) is thrown again at the same point.
 */
export class ReplayModel implements Model {
  readonly id: string;
  readonly info?: ModelInfo;
  /** Every difference found so far (with `allowDrift`, the run goes on and collects them all). */
  readonly drifts: ReplayDrift[] = [];
  private readonly calls: RecordedCall[] = [];
  private cursor = 0;
  private readonly extra = new Map<string, RecordedExtra[]>();
  /** The recorded system prompts and tool specs by hash, to show a drift as a diff. */
  private readonly texts: TraceTexts;

  constructor(
    steps: readonly StepRecord[],
    private readonly options: ReplayModelOptions,
  ) {
    this.id = options.id;
    this.info = options.info;
    this.texts = traceTexts({ steps: steps as StepRecord[], events: (options.events ?? []) as EventRecord[] });
    for (const s of steps) {
      if (s.model)
        this.calls.push({ step: s.step, kind: 'response', hashes: s.model.hashes, response: s.model.response });
      else if (s.error && s.error.kind in MODEL_ERROR_KINDS)
        this.calls.push({ step: s.step, kind: 'error', errorKind: s.error.kind, message: s.error.message });
    }
    for (const e of options.events ?? []) {
      if (e.type !== 'model_call') continue;
      const d = e.data as { purpose?: unknown; response?: unknown; error?: unknown; hashes?: unknown };
      const response = ModelResponseSchema.safeParse(d.response);
      const outcome = response.success
        ? { step: e.step, response: response.data }
        : typeof d.error === 'string'
          ? { step: e.step, error: d.error }
          : undefined;
      const hashes = SideHashes.safeParse(d.hashes);
      const call: RecordedExtra | undefined =
        outcome && (hashes.success ? { ...outcome, hashes: hashes.data } : outcome);
      if (!call || typeof d.purpose !== 'string') continue;
      const list = this.extra.get(d.purpose) ?? [];
      list.push(call);
      this.extra.set(d.purpose, list);
    }
  }

  /** How many recorded calls were served. */
  get served(): number {
    return this.cursor;
  }

  /** How many recorded calls there are. */
  get recorded(): number {
    return this.calls.length;
  }

  async generate(request: ModelRequest, options: GenerateOptions = {}): Promise<ModelResponse> {
    if (options.purpose && options.purpose !== 'decide') return this.serveExtra(options.purpose, request, options);
    const call = this.calls[this.cursor];
    if (!call) {
      const last = this.calls.length ? this.calls[this.calls.length - 1].step : 0;
      // Nothing left to serve: the run cannot go on, allowDrift or not.
      const drift: ReplayDrift = {
        step: last + 1,
        parts: ['model-calls'],
        message:
          `replay drift after step ${last}: the recorded run made ${this.calls.length} model calls ` +
          `and the replay asked for one more`,
      };
      this.drifts.push(drift);
      throw new ReplayDriftError(drift);
    }
    this.cursor++;
    // Same message as recorded: RECOVER feeds it back to the model, so it is part of the next request.
    if (call.kind === 'error') throw new ModelError(MODEL_ERROR_KINDS[call.errorKind], call.message);
    const parts = differingParts(call.hashes, options.requestHashes ?? partialHashes(request));
    if (parts.length) {
      const drift: ReplayDrift = {
        step: call.step,
        parts,
        message: `replay drift at step ${call.step}: the model request differs in ${parts.map((p) => DRIFT_PART_NAMES[p]).join(', ')}`,
      };
      const texts = this.driftTexts(parts, call.hashes, request);
      if (texts.length) drift.texts = texts;
      this.drifts.push(drift);
      if (!this.options.allowDrift) throw new ReplayDriftError(drift);
    }
    const response = structuredClone(call.response);
    await stream(response, options);
    return response;
  }

  /** Diffs of the recorded system prompt and tool specs against the live request's, for the parts that drifted. */
  private driftTexts(
    parts: DriftPart[],
    recorded: Omit<RequestHashes, 'request'>,
    request: ModelRequest,
  ): NonNullable<ReplayDrift['texts']> {
    const out: NonNullable<ReplayDrift['texts']> = [];
    const labels = { labelA: 'recorded', labelB: 'replay' };
    if (parts.includes('system')) {
      const was = this.texts.prompts.get(recorded.system);
      const now = request.messages[0]?.role === 'system' ? request.messages[0].content : '';
      if (was === undefined)
        out.push({
          part: 'system',
          diff: null,
          note: 'the trace does not hold the recorded system prompt (written before traces recorded it)',
        });
      else if (was === '' && now !== '') {
        // A trace written before the parser's instructions became the default system prompt (an agent without buildSystemPrompt sent none).
        const note =
          'the recorded run sent no system prompt; an agent that does not override ' +
          "buildSystemPrompt now sends its parser's instructions: override buildSystemPrompt() to " +
          'return undefined to replay it as recorded';
        out.push({ part: 'system', diff: unifiedTextDiff(was, now, labels), note });
      } else out.push({ part: 'system', diff: unifiedTextDiff(was, now, labels) });
    }
    if (parts.includes('tools')) {
      const was = this.texts.toolSpecs.get(recorded.tools);
      out.push(
        was === undefined
          ? {
              part: 'tools',
              diff: null,
              note: 'the trace does not hold the recorded tool specs (written before traces recorded them)',
            }
          : { part: 'tools', diff: unifiedTextDiff(jsonDiffText(was), jsonDiffText(request.tools ?? []), labels) },
      );
    }
    return out;
  }

  /**
   * Serves the next recorded call of `purpose`. Its request is compared part by part with the recorded one
   * (traces written before side calls recorded their hashes: only the order is checked).
   */
  private async serveExtra(purpose: string, request: ModelRequest, options: GenerateOptions): Promise<ModelResponse> {
    const call = this.extra.get(purpose)?.shift();
    if (!call) {
      const drift: ReplayDrift = {
        step: 0,
        parts: ['model-calls'],
        message: `replay drift: the replay made a "${purpose}" model call the recorded run did not make`,
      };
      this.drifts.push(drift);
      throw new ReplayDriftError(drift);
    }
    if (call.hashes) {
      const parts = differingParts(call.hashes, sideCallHashes(request));
      if (parts.length) {
        const drift: ReplayDrift = {
          step: call.step,
          parts,
          message:
            `replay drift at step ${call.step}: the "${purpose}" model request differs ` +
            `in ${parts.map((p) => DRIFT_PART_NAMES[p]).join(', ')}`,
        };
        const texts = this.driftTexts(parts, call.hashes, request);
        if (texts.length) drift.texts = texts;
        this.drifts.push(drift);
        if (!this.options.allowDrift) throw new ReplayDriftError(drift);
      }
    }
    if ('error' in call) throw new ModelError('transport', call.error);
    const response = structuredClone(call.response);
    await stream(response, options);
    return response;
  }
}

/** The parts whose hashes differ; `messages` is skipped when the live hash is unknown. */
function differingParts(recorded: Omit<RequestHashes, 'request'>, live: Partial<RequestHashes>): DriftPart[] {
  const out: DriftPart[] = [];
  for (const p of ['system', 'messages', 'tools', 'params'] as const)
    if (live[p] !== undefined && live[p] !== recorded[p]) out.push(p);
  return out;
}

/**
 * Hashes computable from a bare request (when the caller did not pass the engine's): system prompt, tools
 * and params. The messages hash is the engine's rolling hash over history messages, which a flat request
 * cannot reproduce, so it is left out.
 */
function partialHashes(request: ModelRequest): Partial<RequestHashes> {
  const { messages, tools, ...params } = request;
  const system = messages[0]?.role === 'system' ? messages[0].content : '';
  return {
    system: shortHash(system),
    tools: shortHash(canonicalJson(tools ?? [])),
    params: shortHash(canonicalJson(params)),
  };
}

/** Streams a recorded response as a live provider would, so hooks and the trace see the same events (waiting for a slow listener). */
async function stream(response: ModelResponse, { onEvent: listener }: GenerateOptions): Promise<void> {
  if (!listener) return;
  const events: ModelStreamEvent[] = [{ type: 'step-start' }];
  let r = 0;
  for (const p of response.parts) {
    if (p.type === 'reasoning') {
      const id = `rs_replay_${r++}`;
      events.push({ type: 'reasoning-start', id });
      if (p.text) events.push({ type: 'reasoning-delta', id, delta: p.text });
      events.push({ type: 'reasoning-end', id, ...(p.signature ? { signature: p.signature } : {}) });
    } else if (p.type === 'text') {
      if (p.text) events.push({ type: 'text-delta', delta: p.text });
    } else {
      events.push({ type: 'tool-input-start', callId: p.callId, name: p.name });
      if (p.input) events.push({ type: 'tool-input-delta', callId: p.callId, delta: p.input });
      events.push({ type: 'tool-call', callId: p.callId, name: p.name, input: p.input });
    }
  }
  events.push({ type: 'step-finish', finishReason: response.finishReason, usage: response.usage, cost: response.cost });
  for (const e of events) {
    const wait = pendingOf(listener(e));
    if (wait) await wait;
  }
}
