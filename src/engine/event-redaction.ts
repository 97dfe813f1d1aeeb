import type { HookEvent, ModelStreamEvent, Redactor } from '../core/index.js';

type Delta = Extract<ModelStreamEvent, { type: 'text-delta' | 'reasoning-delta' | 'tool-input-delta' }>;
type DeltaEvent = Extract<HookEvent, { type: 'model_event' }> & { event: Delta };

/**
 * The events of one run as the trace and `Engine.stream` get them: each redacted, and a model's deltas joined
 * across pieces, so a secret streamed a few characters at a time is caught too. A delta's tail that could still
 * be the start of a secret is held back until the next piece of the same stream, or until any other event,
 * which first releases what every stream holds.
 */
export function eventRedaction(redactor: Redactor): (event: HookEvent) => HookEvent[] {
  const held = new Map<string, { event: DeltaEvent; text: string }>();
  return (event) => {
    if (event.type === 'model_event' && isDelta(event.event)) {
      const key = `${event.event.type}:${'id' in event.event ? event.event.id : 'callId' in event.event ? event.event.callId : ''}`;
      const { ready, hold } = redactor.splitStream((held.get(key)?.text ?? '') + event.event.delta);
      held.set(key, { event: event as DeltaEvent, text: hold });
      return ready ? [withDelta(event as DeltaEvent, ready)] : [];
    }
    const out: HookEvent[] = [];
    for (const { event: last, text } of held.values()) if (text) out.push(withDelta(last, redactor.redact(text)));
    held.clear();
    out.push(redactor.redactValue(event));
    return out;
  };
}

function isDelta(e: ModelStreamEvent): e is Delta {
  return e.type === 'text-delta' || e.type === 'reasoning-delta' || e.type === 'tool-input-delta';
}

function withDelta(e: DeltaEvent, delta: string): HookEvent {
  return { ...e, event: { ...e.event, delta } };
}
