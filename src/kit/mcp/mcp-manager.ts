import type {
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
} from '@modelcontextprotocol/sdk/types.js';
import { errorMessage, type AnyTool, type Policy, type Redactor, type State } from '../../core/index.js';
import type { ToolRegistry } from '../../engine/tool-registry.js';
import { convertMcpTool } from './convert-mcp-tool.js';
import { MCP_DEFAULT_SAMPLING_MAX_TOKENS, parseMcpConfig, type McpServerConfig } from './mcp-config.js';
import { answerElicitation } from './mcp-elicitation.js';
import { McpRunPolicy, type McpSamplerFactory } from './mcp-run-policy.js';
import { listMcpResourcesTool } from './list-mcp-resources-tool.js';
import { readMcpResourceTool } from './read-mcp-resource-tool.js';
import { samplingRequest, samplingResult } from './mcp-sampling.js';
import { McpSession, type McpCallOptions, type McpSessionHooks } from './mcp-session.js';
import { toolAllowed } from './mcp-tool-filter.js';
import type { McpResourceRef } from './mcp-uri.js';
import { expandServerConfig, referencedVarValues } from './mcp-vars.js';
import type { McpEvent, McpRunBinding, McpServers, McpServerState, McpServerStatus } from './mcp-servers.js';

export type { McpEvent, McpRunBinding, McpServerState, McpServerStatus } from './mcp-servers.js';

/** Options of an McpManager. */
export interface McpManagerOptions {
  /** Where `${VAR}` values come from, and PATH/HOME/LANG of stdio servers (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** The run's redactor: every `${VAR}` value a server's config expands is added to it before the server starts. */
  redactor?: Redactor;
  /** What relative `cwd`s of stdio servers are relative to (default `process.cwd()`). */
  cwd?: string;
  /**
   * Reopening a lost connection: the delay doubles from `delayMs` (default 500) up to `maxDelayMs` (default 8000)
   * with each loss in the last minute; after `attempts` (default 5) such losses the server is `failed`.
   * `false` turns reconnecting off.
   */
  reconnect?: { attempts?: number; delayMs?: number; maxDelayMs?: number } | false;
  /**
   * Gets every event from the start, those of `connect` itself included (a server that dies while it is being
   * connected is reconnected before `connect` returns, so a listener added with `on` afterwards would miss them).
   */
  onEvent?: (e: McpEvent) => void;
}

interface Entry {
  name: string;
  cfg: McpServerConfig;
  label: string;
  state: McpServerState;
  reason?: string;
  session?: McpSession;
  tools: AnyTool[];
  skipped: Array<{ tool: string; reason: string }>;
  unconverted: Record<string, string>;
  reconnects: number;
  losses: number[];
  timer?: NodeJS.Timeout;
  refreshing: Promise<void>;
}

const LOSS_WINDOW_MS = 60_000;

/**
 * The MCP servers of a config, connected and kept connected: all servers connect concurrently (each within its
 * `connectTimeout`), each has a status (`connected`, `failed` with the reason, `disabled`, ...), a lost
 * connection is reopened with backoff, the tool list follows `notifications/tools/list_changed`, and `close()`
 * ends every server. Tools reach an agent through `attach(registry)`; `runPolicy()` makes a run resolve
 * `mcp://` references and records the manager's events in its trace.
 */
export class McpManager implements McpServers {
  private readonly entries = new Map<string, Entry>();
  private readonly registries = new Set<ToolRegistry>();
  private readonly listeners = new Set<(e: McpEvent) => void>();
  private readonly abort = new AbortController();
  private run: McpRunBinding | undefined;
  private closed = false;
  private resourceTools: AnyTool[] | undefined;

  private constructor(
    private readonly options: McpManagerOptions,
    config: Record<string, McpServerConfig>,
  ) {
    if (options.onEvent) this.listeners.add(options.onEvent);
    for (const [name, cfg] of Object.entries(config)) {
      const where = cfg.type === 'stdio' ? [cfg.command, ...(cfg.args ?? [])].join(' ') : cfg.url;
      this.entries.set(name, {
        name,
        cfg,
        label: `MCP server "${name}" (${where})`,
        state: cfg.enabled === false ? 'disabled' : 'connecting',
        tools: [],
        skipped: [],
        unconverted: {},
        reconnects: 0,
        losses: [],
        refreshing: Promise.resolve(),
      });
    }
  }

  /**
   * Connects every enabled server of `config` at once and resolves when each is connected or has failed (a failed
   * server does not fail the call: see `statuses()`). An invalid config throws, naming the field.
   */
  static async connect(config: unknown, options: McpManagerOptions = {}): Promise<McpManager> {
    const manager = new McpManager(options, parseMcpConfig(config));
    await Promise.all(
      [...manager.entries.values()].filter((e) => e.state === 'connecting').map((e) => manager.open(e)),
    );
    return manager;
  }

  /** The status of every server, in config order. */
  statuses(): McpServerStatus[] {
    return [...this.entries.values()].map((e) => {
      const caps = e.session && !e.session.closed ? e.session.capabilities : undefined;
      return {
        name: e.name,
        type: e.cfg.type,
        state: e.state,
        ...(e.reason ? { reason: e.reason } : {}),
        ...(e.session ? { transport: e.session.kind } : {}),
        ...(e.cfg.type === 'stdio' && e.session ? { pid: e.session.pid } : {}),
        tools: e.tools.map((t) => t.id),
        skipped: e.skipped,
        unconvertedSchemas: e.unconverted,
        resources: caps?.resources ?? false,
        prompts: caps?.prompts ?? false,
        reconnects: e.reconnects,
      };
    });
  }

  /** The tools of every connected server (after `tools` filters), plus the resource tools when a server has resources. */
  tools(): AnyTool[] {
    const out = [...this.entries.values()].flatMap((e) => e.tools);
    if (this.statuses().some((s) => s.resources)) out.push(...this.resourceToolList());
    return out;
  }

  /**
   * Registers `tools()` in an agent's registry and keeps it current: tools of a server whose list changed are
   * replaced. A tool whose id the registry already has (a tool of the agent's own) is left out and listed in
   * the server's `skipped`.
   */
  attach(registry: ToolRegistry): void {
    this.registries.add(registry);
    for (const e of this.entries.values()) this.sync(registry, e, [], e.tools);
    if (this.statuses().some((s) => s.resources)) {
      for (const t of this.resourceToolList()) if (!registry.has(t.id)) registry.register(t);
    }
  }

  /**
   * A policy that ties one run to this manager (see McpRunPolicy); `sampler` builds the sampler of that run
   * (default: the run's model through its middleware, counted in its usage and budgets). One manager serves one
   * run at a time.
   */
  runPolicy<S extends State>(sampler?: McpSamplerFactory<S>): Policy<S> {
    return new McpRunPolicy<S>(this, sampler);
  }

  /** Routes events to a run and lets its model answer sampling, until the next `bindRun` or `close()`. */
  bindRun(binding: McpRunBinding | undefined): void {
    this.run = binding;
  }

  /** Calls `listener` with every event; returns the unsubscribe. */
  on(listener: (e: McpEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Names of the configured servers. */
  get serverNames(): string[] {
    return [...this.entries.keys()];
  }

  /** `resources/read` of `mcp://<server>/<uri>`. */
  async readResource(ref: McpResourceRef, opts: McpCallOptions = {}): Promise<ReadResourceResult> {
    return this.session(ref.server).readResource(ref.uri, opts);
  }

  /** The resources and resource templates of one server. */
  async resources(server: string): Promise<{ resources: Resource[]; templates: ResourceTemplate[] }> {
    const s = this.session(server);
    if (!s.capabilities.resources) return { resources: [], templates: [] };
    const [resources, templates] = await Promise.all([s.listResources(), s.listResourceTemplates()]);
    return { resources, templates };
  }

  /** The prompts of one server. */
  async prompts(server: string): Promise<Prompt[]> {
    const s = this.session(server);
    return s.capabilities.prompts ? s.listPrompts() : [];
  }

  /** `prompts/get` of one server's prompt. */
  async getPrompt(server: string, name: string, args: Record<string, string>): Promise<GetPromptResult> {
    return this.session(server).getPrompt(name, args);
  }

  /** Ends every server (and any reconnect in progress). Safe to call twice. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.run = undefined;
    this.abort.abort(new Error('the MCP manager was closed'));
    await Promise.all(
      [...this.entries.values()].map(async (e) => {
        if (e.timer) clearTimeout(e.timer);
        const s = e.session;
        if (e.state !== 'disabled') this.setState(e, 'closed');
        await s?.close();
      }),
    );
  }

  /** The live session of a server, or an Error that says why there is none. */
  private sessionOrError(e: Entry): McpSession | Error {
    if (e.state === 'connected' && e.session && !e.session.closed) return e.session;
    if (e.state === 'reconnecting' || e.state === 'connecting')
      return new Error(
        `${e.label} is reconnecting${e.reason ? ` after it ${e.reason.split('\n')[0]}` : ''}; try again shortly`,
      );
    if (e.state === 'closed') return new Error(`${e.label} was closed`);
    if (e.state === 'disabled') return new Error(`${e.label} is disabled in the config`);
    return new Error(`${e.label} is not available: ${e.reason ?? 'it failed'}`);
  }

  private session(server: string): McpSession {
    const e = this.entries.get(server);
    if (!e) throw new Error(`no MCP server named "${server}" (configured: ${this.serverNames.join(', ') || 'none'})`);
    const s = this.sessionOrError(e);
    if (s instanceof Error) throw s;
    return s;
  }

  private resourceToolList(): AnyTool[] {
    return (this.resourceTools ??= [listMcpResourcesTool(this), readMcpResourceTool(this)]);
  }

  /** Opens a server's session and lists its tools; on failure the server is `failed` (or retried when reconnecting). */
  private async open(e: Entry): Promise<void> {
    const env = this.options.env ?? process.env;
    try {
      const cfg = expandServerConfig(e.name, e.cfg, env);
      this.options.redactor?.add(...referencedVarValues(e.cfg, env));
      const session = await McpSession.open(e.label, cfg, this.hooks(e), {
        cwd: this.options.cwd ?? process.cwd(),
        env,
        signal: this.abort.signal,
      });
      if (this.closed) return void (await session.close());
      e.session = session;
      await this.listTools(e);
      if (this.closed) return;
      this.setState(e, 'connected');
    } catch (error) {
      await e.session?.close();
      e.session = undefined;
      if (this.closed) return;
      const why = errorMessage(error).replace(`${e.label} failed to start: `, '');
      if (e.state === 'reconnecting') this.lost(e, `could not be reopened: ${why}`);
      else this.setState(e, 'failed', why);
    }
  }

  private hooks(e: Entry): McpSessionHooks {
    const sampling = e.cfg.sampling;
    return {
      toolsChanged: () => void this.refresh(e),
      lost: (reason) => this.lost(e, reason),
      elicitation: async (params) => {
        const answer = answerElicitation(params, e.cfg.elicitation);
        const fields = params.mode === 'url' ? [] : Object.keys(params.requestedSchema.properties);
        this.emit({
          type: 'elicitation',
          server: e.name,
          mode: params.mode === 'url' ? 'url' : 'form',
          message: params.message,
          fields,
          action: answer.result.action,
          ...(answer.note ? { note: answer.note } : {}),
        });
        return answer.result;
      },
      ...(sampling
        ? {
            sampling: async (params, signal) => {
              const maxTokens = Math.min(
                params.maxTokens,
                typeof sampling === 'object' && sampling.maxTokens
                  ? sampling.maxTokens
                  : MCP_DEFAULT_SAMPLING_MAX_TOKENS,
              );
              const base = { type: 'sampling' as const, server: e.name, messages: params.messages.length, maxTokens };
              const sampler = this.run?.sampler;
              try {
                if (!sampler)
                  throw new Error(
                    'no model is connected to answer it: the run using this server supplies no sampler (docs/mcp.md, Sampling)',
                  );
                const response = await sampler.sample(samplingRequest(params, maxTokens), { server: e.name, signal });
                this.emit({ ...base, tokens: response.usage, cost: response.cost });
                return samplingResult(response, sampler.modelId);
              } catch (error) {
                this.emit({ ...base, error: errorMessage(error) });
                throw new Error(`sampling request of ${e.label} failed: ${errorMessage(error)}`);
              }
            },
          }
        : {}),
    };
  }

  /** Lists a server's tools, converts those the filter lets through, and swaps them into attached registries. */
  private async listTools(e: Entry): Promise<void> {
    const session = e.session;
    if (!session || session.closed) return;
    const infos = session.capabilities.tools ? await session.listTools() : [];
    if (e.session !== session) return;
    const skipped: Entry['skipped'] = [];
    const unconverted: Record<string, string> = {};
    const tools: AnyTool[] = [];
    const taken = new Set([...this.entries.values()].filter((o) => o !== e).flatMap((o) => o.tools.map((t) => t.id)));
    for (const info of infos) {
      if (!toolAllowed(info.name, e.cfg.tools)) {
        skipped.push({ tool: info.name, reason: 'left out by the tools filter' });
        continue;
      }
      const { tool, unconverted: why } = convertMcpTool(info, {
        server: e.name,
        session: () => this.sessionOrError(e),
        outputLimits: e.cfg.outputLimits,
      });
      if (taken.has(tool.id)) {
        skipped.push({ tool: info.name, reason: `its id "${tool.id}" is already taken by another tool` });
        continue;
      }
      taken.add(tool.id);
      if (why) unconverted[tool.id] = why;
      tools.push(tool);
    }
    const old = e.tools;
    e.tools = tools;
    e.skipped = skipped;
    e.unconverted = unconverted;
    for (const r of this.registries) this.sync(r, e, old, tools);
    const before = new Set(old.map((t) => t.id));
    const after = new Set(tools.map((t) => t.id));
    const added = [...after].filter((id) => !before.has(id));
    const removed = [...before].filter((id) => !after.has(id));
    if (e.state !== 'connecting' && (added.length || removed.length))
      this.emit({ type: 'tools_changed', server: e.name, added, removed });
  }

  /** Replaces a server's old tools by its new ones in one registry; ids the registry holds for other tools are skipped. */
  private sync(registry: ToolRegistry, e: Entry, old: AnyTool[], tools: AnyTool[]): void {
    for (const t of old) if (registry.get(t.id) === t) registry.unregister(t.id);
    for (const t of tools) {
      if (registry.has(t.id)) {
        if (!e.skipped.some((s) => s.tool === t.id))
          e.skipped.push({ tool: t.id, reason: 'the agent already has a tool with this id' });
      } else registry.register(t);
    }
  }

  /** Re-lists a server's tools after `tools/list_changed`, one refresh at a time. */
  private refresh(e: Entry): Promise<void> {
    e.refreshing = e.refreshing.then(async () => {
      if (this.closed || e.state !== 'connected') return;
      try {
        await this.listTools(e);
      } catch (error) {
        // the old list stays in use; the event says the refresh failed
        this.emit({
          type: 'status',
          server: e.name,
          state: e.state,
          reason: `tools/list after a change failed: ${errorMessage(error)}`,
        });
      }
    });
    return e.refreshing;
  }

  /** A connection was lost (or could not be reopened): reopen it after a backoff, or give up. */
  private lost(e: Entry, reason: string): void {
    if (this.closed) return;
    e.session = undefined;
    const now = Date.now();
    e.losses = [...e.losses.filter((t) => now - t < LOSS_WINDOW_MS), now];
    const r = this.options.reconnect;
    if (r === false) return this.setState(e, 'failed', reason);
    const attempts = r?.attempts ?? 5;
    if (e.losses.length > attempts)
      return this.setState(e, 'failed', `${reason} (gave up after ${attempts} reconnects within a minute)`);
    const delay = Math.min(r?.maxDelayMs ?? 8_000, (r?.delayMs ?? 500) * 2 ** (e.losses.length - 1));
    this.setState(e, 'reconnecting', reason);
    e.timer = setTimeout(() => {
      e.timer = undefined;
      e.reconnects++;
      void this.open(e);
    }, delay);
    // a pending reconnect alone does not keep the process alive
    e.timer.unref?.();
  }

  private setState(e: Entry, state: McpServerState, reason?: string): void {
    e.state = state;
    e.reason = reason;
    this.emit({ type: 'status', server: e.name, state, ...(reason ? { reason } : {}) });
  }

  private emit(event: McpEvent): void {
    this.run?.emit(event);
    for (const l of this.listeners) l(event);
  }
}
