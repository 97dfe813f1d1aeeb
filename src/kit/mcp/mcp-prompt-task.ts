import type { GetPromptResult, Prompt } from '@modelcontextprotocol/sdk/types.js';
import type { Attachment, TaskInput } from '../../core/index.js';
import type { McpServers } from './mcp-servers.js';
import { mcpToolOutput, type McpContent } from './mcp-result.js';

/** The key of `task.resources` holding the files of a prompt (McpRunPolicy adds them to the first user message). */
export const MCP_PROMPT_FILES = 'mcpPromptFiles';

/** `server/name` of a prompt, as `--mcp-prompt` takes it. */
export function parsePromptRef(text: string): { server: string; name: string } {
  const slash = text.indexOf('/');
  if (slash <= 0 || slash === text.length - 1)
    throw new Error(`--mcp-prompt takes <server>/<prompt>, e.g. docs/summarize; got "${text}"`);
  return { server: text.slice(0, slash), name: text.slice(slash + 1) };
}

/**
 * A task from a server's prompt (`prompts/get`), so a prompt works as a task template: the prompt's arguments are
 * checked against what it declares (unknown and missing required ones are errors naming them), then its messages
 * become the objective (text, embedded text resources, `[resource] mcp://...` lines for links; several turns are
 * labelled `User:` / `Assistant:`) and its images, audio and binary resources become files of the first user message.
 */
export async function mcpPromptTask(
  manager: McpServers,
  server: string,
  name: string,
  args: Record<string, string>,
): Promise<Pick<TaskInput, 'objective' | 'resources' | 'metadata'>> {
  const prompts = await manager.prompts(server);
  const prompt = prompts.find((p) => p.name === name);
  if (!prompt)
    throw new Error(
      `MCP server "${server}" has no prompt "${name}" (it has: ${prompts.map((p) => p.name).join(', ') || 'no prompts'})`,
    );
  checkArgs(server, prompt, args);
  const result = await manager.getPrompt(server, name, args);
  return promptToTask(server, name, result, args);
}

function checkArgs(server: string, prompt: Prompt, args: Record<string, string>): void {
  const declared = prompt.arguments ?? [];
  const unknown = Object.keys(args).filter((k) => !declared.some((a) => a.name === k));
  if (unknown.length)
    throw new Error(
      `prompt ${server}/${prompt.name} has no ` +
        `argument ${unknown.map((k) => `"${k}"`).join(', ')} (it ` +
        `takes: ${declared.map((a) => a.name).join(', ') || 'none'})`,
    );
  const missing = declared.filter((a) => a.required && args[a.name] === undefined);
  if (missing.length)
    throw new Error(
      `prompt ${server}/${prompt.name} ` +
        `needs ${missing.map((a) => `--arg ${a.name}=...${a.description ? ` (${a.description})` : ''}`).join(', ')}`,
    );
}

/** The task fields of a `prompts/get` result. */
export function promptToTask(
  server: string,
  name: string,
  result: GetPromptResult,
  args: Record<string, string>,
): Pick<TaskInput, 'objective' | 'resources' | 'metadata'> {
  const files: Attachment[] = [];
  const labelled = result.messages.some((m) => m.role === 'assistant');
  const turns: string[] = [];
  for (const m of result.messages) {
    const out = mcpToolOutput(server, [m.content as McpContent]);
    if (out.attachments) files.push(...out.attachments);
    const text = out.attachments ? '' : out.output;
    if (text) turns.push(labelled ? `${m.role === 'user' ? 'User' : 'Assistant'}: ${text}` : text);
  }
  const objective = turns.join('\n\n') || result.description || `MCP prompt ${server}/${name}`;
  return {
    objective,
    ...(files.length ? { resources: { [MCP_PROMPT_FILES]: files } } : {}),
    metadata: { mcpPrompt: { server, name, arguments: args } },
  };
}
