import { resolve } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type {
  CallToolResult,
  CreateMessageRequest,
  CreateMessageResult,
  ElicitRequest,
  ElicitResult,
  GetPromptResult,
  Progress,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  Tool as McpToolInfo,
} from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../../core/index.js';
import { cappedFetch, McpMessageTooLargeError } from './capped-fetch.js';
import { MCP_DEFAULT_MAX_MESSAGE_BYTES, MCP_DEFAULT_TIMEOUT_MS, type McpServerConfig } from './mcp-config.js';
import { mcpEnv } from './mcp-env.js';
import { LineReadBuffer } from './line-read-buffer.js';

/** What a session tells its owner, and how it answers the server's own requests. */
export interface McpSessionHooks {
  /** The server announced `notifications/tools/list_changed`. */
  toolsChanged(): void;
  /** The connection ended without `close()`: the server exited, sent an oversize message, or its transport failed. */
  lost(reason: string): void;
  /** Answers `sampling/createMessage`; when absent, sampling is not offered to the server. */
  sampling?(params: CreateMessageRequest['params'], signal: AbortSignal): Promise<CreateMessageResult>;
  /** Answers `elicitation/create`. */
  elicitation(params: ElicitRequest['params']): Promise<ElicitResult>;
}

/** Options of one call to a server. */
export interface McpCallOptions {
  signal?: AbortSignal;
  /** Called on each progress notification (each one also restarts the request's timeout). */
  onProgress?: (p: Progress) => void;
}

/** Which wire protocol a session ended up speaking. */
export type McpTransportKind = 'stdio' | 'streamable-http' | 'sse';

const STDERR_TAIL = 2_000;
// A server that keeps handing out cursors is cut off instead of listing forever.
const MAX_PAGES = 100;

/**
 * One live connection to one MCP server, over the official SDK's transports: stdio (a subprocess with a cleared
 * environment), streamable HTTP, or HTTP+SSE. Every error names the server (`label`) and what was asked of it.
 * Built by `McpSession.open`; the McpManager owns sessions and replaces one that was lost.
 */
export class McpSession {
  private closing = false;
  private ended = false;
  private stderr = '';
  private tooLarge: McpMessageTooLargeError | undefined;
  private lostReason: string | undefined;
  /** Aborts the requests in flight (an oversize HTTP message fails them instead of leaving them to time out). */
  private readonly inFlight = new Set<AbortController>();

  private constructor(
    readonly label: string,
    private readonly cfg: McpServerConfig,
    private readonly client: Client,
    private readonly transport: Transport,
    readonly kind: McpTransportKind,
    private readonly hooks: McpSessionHooks,
  ) {}

  /**
   * Starts (stdio) or reaches (http) the server and completes the MCP handshake within `connectTimeout`.
   * `cfg` has its `${VAR}`s expanded already; `label` (built from the unexpanded config, so it holds no secret)
   * names the server in errors. Throws an Error that says why the server could not be reached.
   */
  static async open(
    label: string,
    cfg: McpServerConfig,
    hooks: McpSessionHooks,
    opts: { cwd: string; env: Record<string, string | undefined>; signal?: AbortSignal },
  ): Promise<McpSession> {
    // The SDK is loaded on the first connection: importing qitos-ts does not load an MCP client it may never use.
    const [{ Client }, types] = await Promise.all([
      import('@modelcontextprotocol/sdk/client/index.js'),
      import('@modelcontextprotocol/sdk/types.js'),
    ]);
    const timeout = cfg.connectTimeout ?? MCP_DEFAULT_TIMEOUT_MS;
    const maxBytes = cfg.maxMessageBytes ?? MCP_DEFAULT_MAX_MESSAGE_BYTES;
    let session: McpSession | undefined;
    let stderr = '';
    let tooLarge: McpMessageTooLargeError | undefined;

    const makeClient = () => {
      const client = new Client(
        { name: 'qitos-ts', version: '0.1.0' },
        {
          capabilities: { elicitation: { form: {}, url: {} }, ...(hooks.sampling ? { sampling: {} } : {}) },
          listChanged: { tools: { autoRefresh: false, debounceMs: 50, onChanged: () => hooks.toolsChanged() } },
        },
      );
      client.setRequestHandler(types.ElicitRequestSchema, (req) => hooks.elicitation(req.params));
      if (hooks.sampling) {
        const sampling = hooks.sampling;
        client.setRequestHandler(types.CreateMessageRequestSchema, (req, extra) => sampling(req.params, extra.signal));
      }
      return client;
    };

    const connect = async (kind: McpTransportKind): Promise<McpSession> => {
      const client = makeClient();
      const transport = await openTransport(kind, cfg, opts, maxBytes, (e) =>
        session ? session.noteTooLarge(e) : (tooLarge = e),
      );
      const stream = (transport as { stderr?: NodeJS.ReadableStream | null }).stderr;
      // keep the tail of the server's stderr: it is what explains a crash
      stream?.on('data', (chunk: Buffer) => {
        if (session) session.stderr = (session.stderr + chunk.toString('utf8')).slice(-STDERR_TAIL);
        else stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_TAIL);
      });
      client.onerror = (error) => {
        // Transport errors also fail the pending request, which reports them; these two explain a closed connection.
        if (McpMessageTooLargeError.isInstance(error) || /ReadBuffer exceeded maximum size/.test(error.message)) {
          const e = McpMessageTooLargeError.isInstance(error) ? error : new McpMessageTooLargeError(maxBytes);
          if (session) session.noteTooLarge(e);
          else tooLarge = e;
        }
      };
      client.onclose = () => session?.onClosed();
      try {
        await client.connect(transport, { timeout, ...(opts.signal ? { signal: opts.signal } : {}) });
      } catch (error) {
        await client.close().catch(() => undefined); // the start already failed; this only reaps the process
        throw error;
      }
      session = new McpSession(label, cfg, client, transport, kind, hooks);
      session.stderr = stderr;
      session.tooLarge = tooLarge;
      return session;
    };

    const why = async (error: unknown): Promise<string> => {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' && cfg.type === 'stdio') return `command not found: ${cfg.command}`;
      if (tooLarge) return `${tooLarge.message} during the handshake`;
      if (error instanceof types.McpError && error.code === types.ErrorCode.RequestTimeout)
        return `no answer to the MCP handshake within ${timeout} ms`;
      await new Promise((r) => setImmediate(r)); // let the last stderr chunk arrive
      return `${withCause(error)}${stderr.trim() ? `\nserver stderr:\n${stderr.trim()}` : ''}`;
    };

    const first: McpTransportKind =
      cfg.type === 'stdio' ? 'stdio' : cfg.transport === 'sse' ? 'sse' : 'streamable-http';
    try {
      return await connect(first);
    } catch (error) {
      // Streamable HTTP servers answer the initialize POST; older HTTP+SSE servers reject it with 400, 404 or 405.
      const status = (error as { code?: unknown }).code;
      const older =
        cfg.type === 'http' &&
        (cfg.transport ?? 'auto') === 'auto' &&
        (status === 400 || status === 404 || status === 405);
      if (!older) throw new Error(`${label} failed to start: ${await why(error)}`);
      try {
        return await connect('sse');
      } catch (sseError) {
        throw new Error(
          `${label} failed to start: streamable HTTP answered ${String(status)}, and HTTP+SSE failed: ${await why(sseError)}`,
        );
      }
    }
  }

  /** The server subprocess's pid (stdio), null otherwise or once it has ended. */
  get pid(): number | null {
    return this.ended ? null : ((this.transport as { pid?: number | null }).pid ?? null);
  }

  /** True once the connection has ended (closed, or lost). */
  get closed(): boolean {
    return this.ended;
  }

  /** What the server offers (from the handshake). */
  get capabilities(): { tools: boolean; resources: boolean; prompts: boolean } {
    const c = this.client.getServerCapabilities() ?? {};
    return { tools: !!c.tools, resources: !!c.resources, prompts: !!c.prompts };
  }

  /** Every tool of the server (`tools/list`, all pages). */
  listTools(): Promise<McpToolInfo[]> {
    return this.pages(
      'tools/list',
      (p, o) => this.client.listTools(p, o),
      (r) => r.tools,
    );
  }

  /** Every resource of the server (`resources/list`, all pages). */
  listResources(): Promise<Resource[]> {
    return this.pages(
      'resources/list',
      (p, o) => this.client.listResources(p, o),
      (r) => r.resources,
    );
  }

  /** Every resource template of the server (`resources/templates/list`, all pages). */
  listResourceTemplates(): Promise<ResourceTemplate[]> {
    return this.pages(
      'resources/templates/list',
      (p, o) => this.client.listResourceTemplates(p, o),
      (r) => r.resourceTemplates,
    );
  }

  /** Every prompt of the server (`prompts/list`, all pages). */
  listPrompts(): Promise<Prompt[]> {
    return this.pages(
      'prompts/list',
      (p, o) => this.client.listPrompts(p, o),
      (r) => r.prompts,
    );
  }

  /** `resources/read` of one of the server's URIs. */
  readResource(uri: string, opts: McpCallOptions = {}): Promise<ReadResourceResult> {
    return this.request(`resource "${uri}"`, (local) =>
      this.client.readResource({ uri }, this.requestOptions(opts, local)),
    );
  }

  /** `prompts/get` with string arguments. */
  getPrompt(name: string, args: Record<string, string>): Promise<GetPromptResult> {
    return this.request(`prompt "${name}"`, (local) =>
      this.client.getPrompt({ name, arguments: args }, this.requestOptions({}, local)),
    );
  }

  /** `tools/call`; the timeout restarts on each progress notification. */
  callTool(name: string, args: Record<string, unknown>, opts: McpCallOptions = {}): Promise<CallToolResult> {
    return this.request(
      `tool "${name}"`,
      async (local) =>
        (await this.client.callTool(
          { name, arguments: args },
          undefined,
          this.requestOptions(opts, local),
        )) as CallToolResult,
    );
  }

  /** Ends the session (stdio: closes the server's stdin, then SIGTERM, then SIGKILL, 2 s apart). Safe to call twice. */
  async close(): Promise<void> {
    if (this.ended || this.closing) return;
    this.closing = true;
    const http = this.transport as { terminateSession?: () => Promise<void> };
    // A streamable HTTP session is ended on the server too; a server that does not support it answers 405.
    await http.terminateSession?.().catch(() => undefined);
    await this.client.close();
    this.ended = true;
  }

  /** Ends a session whose server misbehaved (e.g. its HTTP session is gone), reporting `reason` as lost. */
  private async lose(reason: string): Promise<void> {
    if (this.ended || this.closing) return;
    this.lostReason = reason;
    await this.client.close();
  }

  private onClosed(): void {
    if (this.ended && !this.closing) return;
    this.ended = true;
    if (this.closing) return;
    setImmediate(() => {
      const r = this.endReason();
      this.hooks.lost(r.text + r.tail);
    });
  }

  /** Why the connection ended (`text` reads after the label) and the server's last stderr lines. */
  private endReason(): { text: string; tail: string } {
    const tail = this.stderr.trim() ? `\nserver stderr:\n${this.stderr.trim()}` : '';
    if (this.closing) return { text: 'was closed', tail: '' };
    if (this.tooLarge)
      return {
        text: `sent a message larger than ${this.tooLarge.limit} bytes (the maxMessageBytes limit), so qitos closed the connection`,
        tail,
      };
    if (this.lostReason) return { text: this.lostReason, tail: '' };
    return { text: this.kind === 'stdio' ? 'exited' : 'closed the connection', tail };
  }

  /** An oversize message arrived: remember it, and fail what is in flight (its reply may never come). */
  private noteTooLarge(e: McpMessageTooLargeError): void {
    if (this.tooLarge === e) return;
    this.tooLarge = e;
    for (const c of this.inFlight) c.abort(e);
  }

  private requestOptions(opts: McpCallOptions = {}, local?: AbortController) {
    const signal = opts.signal && local ? AbortSignal.any([opts.signal, local.signal]) : (local?.signal ?? opts.signal);
    return {
      timeout: this.cfg.timeout ?? MCP_DEFAULT_TIMEOUT_MS,
      ...(signal ? { signal } : {}),
      ...(opts.onProgress ? { onprogress: opts.onProgress, resetTimeoutOnProgress: true } : {}),
    };
  }

  private async request<T>(what: string, fn: (local: AbortController) => Promise<T>): Promise<T> {
    if (this.ended) {
      const r = this.endReason();
      throw new Error(`${this.label} is not running (it ${r.text}); cannot ask for ${what}${r.tail}`);
    }
    const tooLargeBefore = this.tooLarge;
    const local = new AbortController();
    this.inFlight.add(local);
    try {
      return await fn(local);
    } catch (error) {
      throw await this.requestError(what, error, tooLargeBefore !== this.tooLarge, local.signal.aborted);
    } finally {
      this.inFlight.delete(local);
    }
  }

  /** The error a failed request reports; `tooLarge`: an oversize message arrived meanwhile; `aborted`: qitos aborted it for that. */
  private async requestError(what: string, error: unknown, tooLarge: boolean, aborted: boolean): Promise<Error> {
    const { McpError, ErrorCode } = await import('@modelcontextprotocol/sdk/types.js');
    if (tooLarge && this.tooLarge) {
      if (this.kind !== 'stdio') return new Error(`${this.label}: ${what} failed: ${this.tooLarge.message}`);
      await new Promise((r) => setImmediate(r)); // let the last stderr chunk arrive
      const r = this.endReason();
      return new Error(`${this.label} ${r.text} during ${what}${r.tail}`);
    }
    // The SDK reports every abort as a timeout: only a request nobody aborted really timed out.
    if (!aborted && error instanceof McpError && error.code === ErrorCode.RequestTimeout)
      return new Error(`${this.label}: ${what} timed out after ${this.cfg.timeout ?? MCP_DEFAULT_TIMEOUT_MS} ms`);
    if (this.ended || (error instanceof McpError && error.code === ErrorCode.ConnectionClosed)) {
      await new Promise((r) => setImmediate(r)); // let the close and the last stderr chunk arrive
      const r = this.endReason();
      return new Error(`${this.label} ${r.text} during ${what}${r.tail}`);
    }
    if (this.kind !== 'stdio' && isConnectionFailure(error)) {
      await this.lose(`could not be reached: ${withCause(error)}`);
      return new Error(`${this.label}: ${what} failed: the server could not be reached (${withCause(error)})`);
    }
    return new Error(`${this.label}: ${what} failed: ${errorMessage(error)}`);
  }

  /** Every item of a paginated list, following `nextCursor` (at most MAX_PAGES pages). */
  private async pages<R extends { nextCursor?: string }, T>(
    what: string,
    list: (params: { cursor: string } | undefined, options: ReturnType<McpSession['requestOptions']>) => Promise<R>,
    items: (r: R) => T[],
  ): Promise<T[]> {
    const out: T[] = [];
    let cursor: string | undefined;
    for (let n = 0; ; n++) {
      if (n === MAX_PAGES) throw new Error(`${this.label}: ${what} returned more than ${MAX_PAGES} pages`);
      const r = await this.request(what, (local) =>
        list(cursor ? { cursor } : undefined, this.requestOptions({}, local)),
      );
      out.push(...items(r));
      cursor = r.nextCursor;
      if (!cursor) return out;
    }
  }
}

/** The SDK transport for one connection attempt. */
async function openTransport(
  kind: McpTransportKind,
  cfg: McpServerConfig,
  opts: { cwd: string; env: Record<string, string | undefined> },
  maxBytes: number,
  onTooLarge: (e: McpMessageTooLargeError) => void,
): Promise<Transport> {
  if (cfg.type === 'stdio') {
    const [{ StdioClientTransport, DEFAULT_INHERITED_ENV_VARS }, { deserializeMessage }] = await Promise.all([
      import('@modelcontextprotocol/sdk/client/stdio.js'),
      import('@modelcontextprotocol/sdk/shared/stdio.js'),
    ]);
    const transport = new StdioClientTransport({
      command: cfg.command,
      args: cfg.args ?? [],
      env: mcpEnv(cfg.env, opts.env, DEFAULT_INHERITED_ENV_VARS),
      cwd: resolve(opts.cwd, cfg.cwd ?? '.'),
      stderr: 'pipe',
      maxBufferSize: maxBytes,
    });
    // The SDK's read buffer is quadratic in the message size (see LineReadBuffer); swap in the linear one where the
    // transport has it (a future SDK without the field keeps its own, which is slower but correct).
    const internals = transport as unknown as { _readBuffer?: unknown };
    if (internals._readBuffer !== undefined) internals._readBuffer = new LineReadBuffer(maxBytes, deserializeMessage);
    return transport;
  }
  const url = new URL(cfg.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`the url must be http: or https:, not ${url.protocol}`);
  const requestInit: RequestInit = { headers: cfg.headers ?? {} };
  const fetchCapped = cappedFetch(maxBytes, onTooLarge);
  if (kind === 'sse') {
    const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js');
    return new SSEClientTransport(url, {
      requestInit,
      fetch: fetchCapped,
      eventSourceInit: {
        fetch: (u, init) =>
          fetchCapped(u, { ...init, headers: { ...(init?.headers as Record<string, string>), ...cfg.headers } }),
      },
    });
  }
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  return new StreamableHTTPClientTransport(url, {
    requestInit,
    fetch: fetchCapped,
    reconnectionOptions: {
      maxReconnectionDelay: 30_000,
      initialReconnectionDelay: 1_000,
      reconnectionDelayGrowFactor: 1.5,
      maxRetries: 2,
    },
  });
}

/** A request that failed because the server could not be reached (refused, reset, DNS), not because it said no. */
function isConnectionFailure(error: unknown): boolean {
  const e = error as { name?: string; message?: string; cause?: { code?: string } };
  return (
    (e?.name === 'TypeError' && /fetch failed/.test(e.message ?? '')) ||
    ['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EPIPE'].includes(e?.cause?.code ?? '')
  );
}

/**
 * An error's message with what it leaves out: the cause (fetch says only "fetch failed"; its cause says "connect
 * ECONNREFUSED ...") and the HTTP status of the SDK's HTTP transport errors.
 */
function withCause(error: unknown): string {
  const e = error as { cause?: unknown; code?: unknown; name?: string; constructor?: { name?: string } };
  let text = errorMessage(error);
  if (e?.cause instanceof Error && !text.includes(e.cause.message)) text += `: ${e.cause.message}`;
  const http = /^(StreamableHTTPError|SseError)$/.test(e?.constructor?.name ?? '');
  if (http && typeof e.code === 'number' && !text.includes(String(e.code))) text += ` (HTTP ${e.code})`;
  return text;
}
