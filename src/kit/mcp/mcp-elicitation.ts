import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { McpElicitationConfig } from './mcp-config.js';

/** The answer to one `elicitation/create`, and why it is what it is (for the trace). */
export interface ElicitationAnswer {
  result: ElicitResult;
  /** Set when the configured action could not be taken as configured (then the request was declined). */
  note?: string;
}

type Content = NonNullable<ElicitResult['content']>;

/**
 * Answers an elicitation from the configured policy; no person is asked during a run. Default `decline`.
 * `accept` sends `content` over the requested schema's defaults, keeping only fields the schema names; when the
 * answer does not satisfy the schema (a required field without a value, a wrong type) the request is declined
 * instead, with a note saying why. URL-mode requests (open a web page) are always declined.
 */
export function answerElicitation(
  params: ElicitRequest['params'],
  policy: McpElicitationConfig | undefined,
): ElicitationAnswer {
  const action = policy?.action ?? 'decline';
  if (params.mode === 'url')
    return {
      result: { action: 'decline' },
      ...(action === 'accept' ? { note: 'URL-mode elicitation is never accepted' } : {}),
    };
  if (action !== 'accept') return { result: { action } };
  const schema = params.requestedSchema;
  const content: Content = {};
  for (const [key, prop] of Object.entries(schema.properties)) {
    const given = policy?.content && Object.hasOwn(policy.content, key) ? policy.content[key] : undefined;
    const fallback = (prop as { default?: unknown }).default;
    const value = given ?? fallback;
    if (value !== undefined)
      Object.defineProperty(content, key, { value, enumerable: true, writable: true, configurable: true });
  }
  const check = validate(schema, content);
  if (check)
    return { result: { action: 'decline' }, note: `the configured answer does not fit the requested schema: ${check}` };
  return { result: { action: 'accept', content } };
}

/** Null when `content` satisfies the requested schema, else the first problem. */
function validate(
  schema: Extract<ElicitRequest['params'], { requestedSchema: unknown }>['requestedSchema'],
  content: Content,
): string | null {
  let zodSchema: z.ZodType;
  try {
    zodSchema = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (error) {
    return `the schema cannot be checked (${error instanceof Error ? error.message : String(error)})`;
  }
  const r = zodSchema.safeParse(content);
  if (r.success) return null;
  const i = r.error.issues[0];
  return `${i.path.map(String).join('.') || '(content)'}: ${i.message}`;
}
