import type {
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
} from '@modelcontextprotocol/sdk/types.js';
import type { Tokens } from '../../core/index.js';
import type { McpServerConfig } from './mcp-config.js';
import type { McpSampler } from './mcp-sampling.js';
import type { McpCallOptions, McpTransportKind } from './mcp-session.js';
import type { McpResourceRef } from './mcp-uri.js';

/** Where a server is in its life. */
export type McpServerState = 'connecting' | 'connected' | 'reconnecting' | 'failed' | 'disabled' | 'closed';

/** One server as `qitos mcp list` shows it. */
export interface McpServerStatus {
  name: string;
  type: McpServerConfig['type'];
  state: McpServerState;
  /** Why it failed, or what it is reconnecting after. */
  reason?: string;
  /** The wire protocol it speaks once connected (`sse` when an HTTP server needed the fallback). */
  transport?: McpTransportKind;
  /** The subprocess of a stdio server. */
  pid?: number | null;
  /** The qitos tool ids it contributes. */
  tools: string[];
  /** Server tools left out, with why (filtered by `tools`, or an id another tool already has). */
  skipped: Array<{ tool: string; reason: string }>;
  /** Tools whose input schema could not be converted (they accept any JSON object), by tool id. */
  unconvertedSchemas: Record<string, string>;
  resources: boolean;
  prompts: boolean;
  /** How many times the connection was lost and opened again. */
  reconnects: number;
}

/** What the manager reports as it happens; a run's McpRunPolicy records these in the trace (`mcp:<type>`). */
export type McpEvent =
  | { type: 'status'; server: string; state: McpServerState; reason?: string }
  | { type: 'tools_changed'; server: string; added: string[]; removed: string[] }
  | {
      type: 'elicitation';
      server: string;
      mode: 'form' | 'url';
      message: string;
      fields: string[];
      action: string;
      note?: string;
    }
  | {
      type: 'sampling';
      server: string;
      messages: number;
      maxTokens: number;
      tokens?: Tokens;
      cost?: number | null;
      error?: string;
    };

/** What a run binds to the manager while it runs: where events go, and who answers sampling. */
export interface McpRunBinding {
  emit(event: McpEvent): void;
  sampler?: McpSampler;
}

/**
 * What the MCP tools, the run policy and prompt tasks use of connected servers (McpManager implements it): their
 * statuses, resources and prompts, and the binding of one run.
 */
export interface McpServers {
  readonly serverNames: string[];
  statuses(): McpServerStatus[];
  bindRun(binding: McpRunBinding | undefined): void;
  readResource(ref: McpResourceRef, opts?: McpCallOptions): Promise<ReadResourceResult>;
  resources(server: string): Promise<{ resources: Resource[]; templates: ResourceTemplate[] }>;
  prompts(server: string): Promise<Prompt[]>;
  getPrompt(server: string, name: string, args: Record<string, string>): Promise<GetPromptResult>;
}
