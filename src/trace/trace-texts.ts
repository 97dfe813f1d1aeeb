import type { ToolSpec } from '../core/index.js';
import type { Trace } from './trace-reader.js';
import { shortHash } from './short-hash.js';

/** The texts a trace holds, keyed by their short hash: system prompts and tool spec lists. */
export interface TraceTexts {
  prompts: Map<string, string>;
  toolSpecs: Map<string, ToolSpec[]>;
}

/**
 * Collects the texts of a trace by hash: system prompts from `prompt` events and from the steps' model records
 * (which carry the prompt whenever it changed), tool specs from `tool_specs` events. A trace written before
 * these events existed has the step prompts only; a hash missing from the maps means the trace does not hold
 * its text.
 */
export function traceTexts(trace: Pick<Trace, 'events' | 'steps'>): TraceTexts {
  // No system prompt: its hash is the empty text's, and no event holds it.
  const prompts = new Map<string, string>([[shortHash(''), '']]);
  // No tools (a text parser sends none): the trace writes no event for the empty list.
  const toolSpecs = new Map<string, ToolSpec[]>([[shortHash('[]'), []]]);
  for (const e of trace.events) {
    const d = e.data as { hash?: unknown; text?: unknown; specs?: unknown } | null;
    if (!d || typeof d.hash !== 'string') continue;
    if (e.type === 'prompt' && typeof d.text === 'string') prompts.set(d.hash, d.text);
    else if (e.type === 'tool_specs' && Array.isArray(d.specs)) toolSpecs.set(d.hash, d.specs as ToolSpec[]);
  }
  for (const s of trace.steps)
    if (s.model?.system !== undefined && !prompts.has(s.model.hashes.system))
      prompts.set(s.model.hashes.system, s.model.system);
  return { prompts, toolSpecs };
}
