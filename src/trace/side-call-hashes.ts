import type { ModelRequest, RequestHashes } from '../core/index.js';
import { canonicalJson } from '../core/index.js';
import { shortHash } from './short-hash.js';

/** The hashes of a model call's request parts that a flat request gives (all but the engine's whole-request hash). */
export type SideCallHashes = Omit<RequestHashes, 'request'>;

/**
 * Hashes of a call made besides a step's own (`callModel`: a workflow LLM node, a summary, a judge): system
 * prompt, messages (canonical JSON of the non-system messages), tool schemas and params. The run records them
 * with the call and a replay compares them with the live request's, part by part.
 */
export function sideCallHashes(request: ModelRequest): SideCallHashes {
  const { messages, tools, ...params } = request;
  const system = messages[0]?.role === 'system' ? messages[0].content : '';
  return {
    system: shortHash(system),
    messages: shortHash(canonicalJson(messages.filter((m) => m.role !== 'system'))),
    tools: shortHash(canonicalJson(tools ?? [])),
    params: shortHash(canonicalJson(params)),
  };
}
