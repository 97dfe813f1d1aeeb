import { AppError } from '../../app/app-error.js';
import { effectiveConfig } from '../../app/effective-config.js';
import type { CliIO } from '../io.js';
import { withMcp } from '../../app/mcp-setup.js';
import { table } from '../../app/text-format.js';
import { errorMessage, newActionId, nullEnv } from '../../core/index.js';
import { ActionExecutor } from '../../engine/action-executor.js';
import { ToolRegistry } from '../../engine/tool-registry.js';
import { mcpToolId } from '../../kit/mcp/index.js';
import { terminalText } from '../../app/terminal-text.js';

/**
 * What `qitos mcp call` does: connects the config's servers, calls `server`'s `tool` through the same tool the
 * agent would get (its arguments checked against the server's schema, its output capped and converted the same
 * way), and prints the result.
 */
export async function mcpCallAction(
  io: CliIO,
  server: string,
  tool: string,
  opts: { config: string; args: string; timeout: number; json?: boolean },
): Promise<void> {
  let args: unknown;
  try {
    args = JSON.parse(opts.args);
  } catch (error) {
    throw new AppError(`--args: not JSON (${errorMessage(error)}): write a JSON object, e.g. '{"path": "README.md"}'`);
  }
  if (!args || typeof args !== 'object' || Array.isArray(args))
    throw new AppError(
      `--args: expected a JSON object, got ${Array.isArray(args) ? 'an array' : JSON.stringify(args)}`,
    );
  const config = await effectiveConfig({}, { config: opts.config }, io.cwd);
  if (!config.mcp || !Object.hasOwn(config.mcp, server))
    throw new AppError(
      `${opts.config} has no MCP server "${server}"${config.mcp ? ` (its servers: ${Object.keys(config.mcp).join(', ')})` : ''}`,
    );
  const result = await withMcp(
    config,
    io,
    async (m) => {
      const status = m!.statuses().find((s) => s.name === server)!;
      if (status.state === 'failed')
        throw new AppError(`MCP server "${server}" is not available: ${(status.reason ?? '').split('\n')[0]}`);
      const id = mcpToolId(server, tool);
      const registry = new ToolRegistry();
      m!.attach(registry);
      if (!registry.has(id))
        throw new AppError(
          `MCP server "${server}" has no tool "${tool}"${status.tools.length ? ` (its tools: ${status.tools.join(', ')})` : ''}`,
        );
      const [r] = await new ActionExecutor(registry, { timeoutMs: opts.timeout }).run(
        [{ id: newActionId(), name: id, args: args as Record<string, unknown> }],
        {
          runId: 'mcp-call',
          traceDir: null,
          step: 1,
          env: nullEnv,
          state: {},
          signal: AbortSignal.timeout(opts.timeout + 5_000),
          services: {},
          depth: 0,
          callModel: () => Promise.reject(new Error('qitos mcp call has no model to answer sampling with')),
          childLink: () => ({ runId: 'mcp-call', path: null, kind: 'subtask', depth: 1 }),
          onState: () => undefined,
        },
      );
      return r!;
    },
    { quiet: true },
  );
  io.exitCode = result.status === 'success' ? 0 : 1;
  const output = typeof result.output === 'string' ? result.output : JSON.stringify(result.output ?? '');
  const files = (result.state.status === 'completed' ? (result.state.attachments ?? []) : []).map((a) => ({
    mime: a.mime,
    ...(a.filename ? { filename: a.filename } : {}),
  }));
  if (opts.json) {
    io.out(
      JSON.stringify(
        { status: result.status, output, ...(result.error ? { error: result.error } : {}), attachments: files },
        null,
        2,
      ) + '\n',
    );
    return;
  }
  // What the server sent is untrusted: its control characters are shown, not obeyed by the terminal.
  if (result.status !== 'success') {
    io.err(`error: ${terminalText(result.error ?? 'the tool failed', { oneLine: false })}\n`);
    return;
  }
  const shown = terminalText(output, { oneLine: false });
  io.out(shown.endsWith('\n') || !shown ? shown : `${shown}\n`);
  for (const a of files)
    io.out(`[file ${terminalText(a.filename ? `${a.filename} ` : '')}(${terminalText(a.mime)})]\n`);
}

/** What `qitos mcp list` does (loaded when the command runs, so `qitos --help` stays fast). */
export async function mcpListAction(io: CliIO, opts: { config: string; json?: boolean }): Promise<void> {
  const config = await effectiveConfig({}, { config: opts.config }, io.cwd);
  if (!config.mcp || Object.keys(config.mcp).length === 0)
    throw new AppError(`${opts.config} has no MCP servers (add an mcp: section, see docs/mcp.md)`);
  const servers = await withMcp(config, io, async (m) => m!.statuses(), { quiet: true });
  io.exitCode = servers.some((s) => s.state === 'failed') ? 1 : 0;
  if (opts.json) {
    io.out(JSON.stringify({ servers }, null, 2) + '\n');
    return;
  }
  const state = (s: (typeof servers)[number]) =>
    s.state === 'failed' ? `failed: ${(s.reason ?? '').split('\n')[0]}` : s.state;
  io.out(
    table(
      ['server', 'type', 'transport', 'tools', 'resources', 'prompts', 'status'],
      servers.map((s) => [
        s.name,
        s.type,
        s.transport ?? '-',
        String(s.tools.length),
        s.resources ? 'yes' : 'no',
        s.prompts ? 'yes' : 'no',
        state(s),
      ]),
    ),
  );
  for (const s of servers) {
    if (s.tools.length) io.out(`\n${terminalText(`${s.name}: ${s.tools.join(', ')}`)}\n`);
    for (const k of s.skipped) io.out(`  ${terminalText(`skipped ${k.tool}: ${k.reason}`)}\n`);
  }
}
