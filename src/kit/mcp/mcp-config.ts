import { z } from 'zod';

/** Default timeout of one MCP request (tool call, listing, resource read) and of the connect handshake, in ms. */
export const MCP_DEFAULT_TIMEOUT_MS = 30_000;
/** Default cap on one message from a server (the SDK's stdio default): a larger one closes the connection. */
export const MCP_DEFAULT_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
/** Default cap on the tokens one `sampling/createMessage` may ask the run's model for. */
export const MCP_DEFAULT_SAMPLING_MAX_TOKENS = 4_096;

/** A server name: the prefix of its tool ids and the host of its `mcp://` URIs. */
export const McpServerName = z.string().regex(/^[A-Za-z0-9_-]{1,40}$/, 'use 1-40 letters, digits, "_" or "-"');

const positiveInt = z.number().int().positive();

/** Which of a server's tools the agent gets, by the server's tool names; `*` matches any characters. */
export const McpToolFilter = z.strictObject({
  include: z.array(z.string().min(1)).optional(),
  exclude: z.array(z.string().min(1)).optional(),
});

/**
 * How `elicitation/create` requests of a server are answered (no person is asked during a run): `decline`
 * (the default), `cancel`, or `accept` with `content` (filled up with the requested schema's defaults; a
 * request whose required fields stay empty is declined). URL-mode requests are always declined.
 */
export const McpElicitationConfig = z.strictObject({
  action: z.enum(['decline', 'cancel', 'accept']),
  content: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())])).optional(),
});

/** Whether a server may ask the run's model for completions (`sampling/createMessage`); off by default. */
export const McpSamplingConfig = z.union([z.boolean(), z.strictObject({ maxTokens: positiveInt.optional() })]);

const common = {
  /** `false` keeps the server in the config without starting it (status `disabled`). */
  enabled: z.boolean().optional(),
  /** Timeout of each request to the server, in ms; progress notifications restart it. */
  timeout: positiveInt.optional(),
  /** Timeout of starting the server and the MCP handshake, in ms. */
  connectTimeout: positiveInt.optional(),
  tools: McpToolFilter.optional(),
  /** Largest message accepted from the server, in bytes (default 10 MiB). */
  maxMessageBytes: positiveInt.optional(),
  /** What the model sees of one result's text (default 2000 lines / 50 KiB); the trace keeps the whole text. */
  outputLimits: z.strictObject({ maxLines: positiveInt.optional(), maxBytes: positiveInt.optional() }).optional(),
  sampling: McpSamplingConfig.optional(),
  elicitation: McpElicitationConfig.optional(),
};

/** A local server started as a subprocess and spoken to over stdio. `${VAR}` is expanded in args, env values and cwd. */
export const McpStdioServerConfig = z.strictObject({
  type: z.literal('stdio'),
  command: z.string().min(1, 'the server needs a command'),
  args: z.array(z.string()).optional(),
  /** The server's environment besides PATH, HOME and LANG: nothing else of this process reaches it. */
  env: z.record(z.string(), z.string()).optional(),
  /** The server's working folder (relative to the working folder). */
  cwd: z.string().min(1).optional(),
  ...common,
});

/** A remote server over streamable HTTP (falling back to the older HTTP+SSE transport). `${VAR}` is expanded in url and header values. */
export const McpHttpServerConfig = z.strictObject({
  type: z.literal('http'),
  url: z.string().min(1, 'the server needs a url'),
  headers: z.record(z.string(), z.string()).optional(),
  /** `auto` (default): streamable HTTP, then HTTP+SSE when the server answers 400/404/405. */
  transport: z.enum(['auto', 'streamable', 'sse']).optional(),
  ...common,
});

export const McpServerConfig = z.discriminatedUnion('type', [McpStdioServerConfig, McpHttpServerConfig]);
export type McpServerConfig = z.infer<typeof McpServerConfig>;
export type McpStdioServerConfig = z.infer<typeof McpStdioServerConfig>;
export type McpHttpServerConfig = z.infer<typeof McpHttpServerConfig>;
export type McpElicitationConfig = z.infer<typeof McpElicitationConfig>;
export type McpToolFilter = z.infer<typeof McpToolFilter>;

/** The `mcp:` section of a config: servers by name. */
export const McpConfig = z.record(McpServerName, McpServerConfig, {
  error: (issue) =>
    issue.code === 'invalid_key' ? 'not a server name: use 1-40 letters, digits, "_" or "-"' : undefined,
});
export type McpConfig = z.infer<typeof McpConfig>;

/** Parses an MCP config; throws an Error naming the field of the first problem. */
export function parseMcpConfig(value: unknown): McpConfig {
  const r = McpConfig.safeParse(value);
  if (r.success) return r.data;
  const i = r.error.issues[0];
  const keys = i.code === 'unrecognized_keys' ? `: unknown field "${i.keys[0]}"` : `: ${i.message}`;
  throw new Error(`invalid MCP config: ${i.path.map(String).join('.') || '(config)'}${keys}`);
}
