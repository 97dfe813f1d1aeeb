import type { Attachment, Message, ModelMessage, Part, Policy, PolicyContext, State } from '../../core/index.js';
import { errorMessage, newId } from '../../core/index.js';
import type { McpServers } from './mcp-servers.js';
import { MCP_PROMPT_FILES } from './mcp-prompt-task.js';
import { mcpResourceParts } from './mcp-resource-parts.js';
import type { McpSampler } from './mcp-sampling.js';
import { findMcpUris, formatMcpUri } from './mcp-uri.js';

/** References resolved per user message at most (the rest are left as text). */
export const MAX_REFS_PER_MESSAGE = 20;

/** Builds the sampler of one run from its policy context (the model and accounting of that run). */
export type McpSamplerFactory<S extends State = State> = (ctx: PolicyContext<S>) => McpSampler | undefined;

/**
 * The default sampler: the run's own model, called through the run's middleware (`ctx.callModel`), so a
 * server's sampling is counted in the run's usage and budgets and traced as a `model_call` (purpose
 * `mcp:sampling`). A run without a model offers no sampler (the request fails with a clear error).
 */
export function runModelSampler<S extends State>(ctx: PolicyContext<S>): McpSampler | undefined {
  if (!ctx.model) return undefined;
  return {
    modelId: ctx.model.id,
    sample: (request, { signal }) => ctx.callModel(request, { signal, purpose: 'mcp:sampling' }),
  };
}

/**
 * Ties one run to an McpManager:
 * - `start`: the manager's events (server status, tool list changes, elicitations, sampling) are recorded in this
 *   run's trace as policy events `mcp:<type>`, and the run's sampler answers sampling requests (by default the
 *   run's model through its middleware, {@link runModelSampler}); the servers' statuses are recorded as `mcp:servers`;
 * - `beforeModel`: each `mcp://<server>/<uri>` in a user message (up to 20 per message, configured servers only)
 *   is read through `resources/read` and added to that message as file parts (`source: { type: 'mcp' }`); a
 *   reference that cannot be read gets a note the model sees. Files of a task built from an MCP prompt are
 *   added to the first user message. A message that already holds such parts is left alone (fork, replay).
 */
export class McpRunPolicy<S extends State = State> implements Policy<S> {
  readonly name = 'mcp';
  private readonly seen = new WeakSet<Message>();
  private scannedArray: Message[] | undefined;
  private scanned = 0;
  private readonly names = new Map<string, Promise<Map<string, string>>>();

  constructor(
    private readonly manager: McpServers,
    private readonly sampler: McpSamplerFactory<S> = runModelSampler,
  ) {}

  /** A fresh instance per run: what it has scanned of a history belongs to that run. */
  forRun(): Policy<S> {
    return new McpRunPolicy<S>(this.manager, this.sampler);
  }

  start(ctx: PolicyContext<S>): void {
    const sampler = this.sampler(ctx);
    this.manager.bindRun({
      emit: ({ type, ...data }) => ctx.emit(`mcp:${type}`, data),
      ...(sampler ? { sampler } : {}),
    });
    ctx.emit('mcp:servers', {
      servers: this.manager.statuses().map((s) => ({
        name: s.name,
        state: s.state,
        ...(s.reason ? { reason: s.reason } : {}),
        tools: s.tools.length,
        ...(s.transport ? { transport: s.transport } : {}),
      })),
    });
  }

  async beforeModel(_messages: ModelMessage[], ctx: PolicyContext<S>): Promise<{ state: S } | void> {
    const history = ctx.state.messages;
    // The engine only appends; a rewritten history (compaction) is a new array and is scanned again.
    const from = history === this.scannedArray ? this.scanned : 0;
    this.scannedArray = history;
    this.scanned = history.length;
    let out: Message[] | undefined;
    for (let i = from; i < history.length; i++) {
      const m = history[i];
      if (m.role !== 'user' || this.seen.has(m)) continue;
      this.seen.add(m);
      if (m.parts.some(fromMcp)) continue;
      const added = [...this.promptFiles(ctx, history, i), ...(await this.resolve(m, ctx))];
      if (!added.length) continue;
      const next: Message = { ...m, parts: [...m.parts, ...added] };
      this.seen.add(next);
      out ??= history.slice();
      out[i] = next;
    }
    if (!out) return;
    this.scannedArray = out;
    return { state: { ...ctx.state, messages: out } };
  }

  /** The files of a task built from an MCP prompt, for the run's first user message. */
  private promptFiles(ctx: PolicyContext<S>, history: Message[], index: number): Part[] {
    if (history.slice(0, index).some((m) => m.role === 'user')) return [];
    const files = ctx.task.resources[MCP_PROMPT_FILES] as Attachment[] | undefined;
    if (!Array.isArray(files)) return [];
    return files.map((f) => ({
      id: newId('prt'),
      type: 'file',
      mime: f.mime,
      url: f.url,
      ...(f.filename ? { filename: f.filename } : {}),
      source: { type: 'mcp-prompt' },
    }));
  }

  /**
   * The names a server gives its resources (listed once per run and server). A listing that fails leaves the
   * labels without names (the reference itself was read, which is what the run needs) and is traced.
   */
  private resourceNames(server: string, ctx: PolicyContext<S>): Promise<Map<string, string>> {
    let names = this.names.get(server);
    if (!names) {
      names = this.manager.resources(server).then(
        ({ resources }) => new Map(resources.map((r) => [r.uri, r.title ?? r.name])),
        (error: unknown) => {
          ctx.emit('mcp:resource', { server, listError: errorMessage(error) });
          return new Map<string, string>();
        },
      );
      this.names.set(server, names);
    }
    return names;
  }

  private async resolve(m: Message, ctx: PolicyContext<S>): Promise<Part[]> {
    const text = m.parts.flatMap((p) => (p.type === 'text' && !p.synthetic ? [p.text] : [])).join('\n');
    const servers = new Set(this.manager.serverNames);
    const refs = findMcpUris(text)
      .filter((r) => servers.has(r.server))
      .slice(0, MAX_REFS_PER_MESSAGE);
    const parts: Part[] = [];
    for (const ref of refs) {
      const where = formatMcpUri(ref);
      try {
        const r = await this.manager.readResource(ref, { signal: ctx.signal });
        const { files, notes } = mcpResourceParts(ref.server, r.contents);
        // A file reaches the model as its bare content: a label before it says which reference it answers.
        if (files.length) {
          const name = (await this.resourceNames(ref.server, ctx)).get(ref.uri);
          const what = [name, ...new Set(files.map((f) => f.mime))].filter(Boolean).join(', ');
          parts.push({
            id: newId('prt'),
            type: 'text',
            synthetic: true,
            text: `[resource ${where} (${what})]`,
            metadata: { mcpResource: where },
          });
        }
        for (const f of files)
          parts.push({
            id: newId('prt'),
            type: 'file',
            ...f,
            source: { type: 'mcp', server: ref.server, uri: ref.uri },
          });
        for (const n of notes)
          parts.push({
            id: newId('prt'),
            type: 'text',
            synthetic: true,
            text: `[${n}]`,
            metadata: { mcpResource: where },
          });
        ctx.emit('mcp:resource', { server: ref.server, uri: ref.uri, files: files.length, notes: notes.length });
      } catch (error) {
        if (ctx.signal.aborted) throw error;
        parts.push({
          id: newId('prt'),
          type: 'text',
          synthetic: true,
          text: `[${where} could not be read: ${errorMessage(error)}]`,
          metadata: { mcpResource: where },
        });
        ctx.emit('mcp:resource', { server: ref.server, uri: ref.uri, error: errorMessage(error) });
      }
    }
    return parts;
  }
}

/** A part this policy added (a resolved file, a prompt file, or a note about a reference). */
function fromMcp(p: Part): boolean {
  if (p.type === 'file') return typeof p.source?.type === 'string' && p.source.type.startsWith('mcp');
  return p.type === 'text' && p.metadata?.mcpResource !== undefined;
}
