import { z } from 'zod';

/** Zod parameters for an MCP tool, and whether its JSON Schema could be converted. */
export interface McpParameters {
  schema: z.ZodType;
  /** False when the schema could not be converted and any JSON object is accepted (the server still validates). */
  converted: boolean;
  /** Why the conversion failed, when it did. */
  reason?: string;
}

/**
 * Turns an MCP tool's `inputSchema` (JSON Schema) into zod, so the executor validates arguments before the call
 * and the model sees the server's schema. The schema is forced to `type: "object"` (MCP tools take an object of
 * arguments); a schema zod cannot convert falls back to "any JSON object".
 */
export function mcpParameters(inputSchema: Record<string, unknown> | undefined): McpParameters {
  const json = { ...(inputSchema ?? {}), type: 'object' };
  try {
    const schema = z.fromJSONSchema(json as Parameters<typeof z.fromJSONSchema>[0]);
    // a schema that converts but cannot be rendered back would break the model's tool list later
    z.toJSONSchema(schema, { io: 'input' });
    return { schema, converted: true };
  } catch (error) {
    return {
      schema: z.record(z.string(), z.unknown()),
      converted: false,
      reason: error instanceof Error ? error.message : String(error),
    };
  }
}
