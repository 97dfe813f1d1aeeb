import { newId, type TaskInput } from '../../core/index.js';
import { mcpPromptTask, parsePromptRef } from '../../kit/mcp/mcp-prompt-task.js';
import { loadAgent } from '../../app/agent-loader.js';
import { AppError } from '../../app/app-error.js';
import { effectiveConfig, requireText } from '../../app/effective-config.js';
import type { CliIO } from '../io.js';
import { LiveView } from '../live-view.js';
import { withMcp } from '../../app/mcp-setup.js';
import { buildAgent, buildEngine, configuredModel } from '../../app/build-engine.js';
import { loadTraceKey } from '../../trace/trace-key.js';
import { withTelemetry } from '../../app/telemetry-setup.js';
import { printRunEnd, runExitCode, runSummary } from '../run-report.js';
import type { RunFlags } from './command-flags.js';
import { autoApprove } from '../../engine/permission-gate.js';
import { ttyApprover } from '../tty-approver.js';

/** What `qitos run` does (loaded when the command runs, so `qitos --help` stays fast). */
export async function runAction(io: CliIO, modulePath: string, flags: RunFlags): Promise<void> {
  if (flags.mcpPrompt === undefined && flags.task === undefined)
    throw new AppError('--task is required (or --mcp-prompt <server>/<prompt>)');
  if (flags.mcpPrompt === undefined) requireText(flags.task, '--task');
  else if (flags.task !== undefined) throw new AppError('give either --task or --mcp-prompt, not both');
  if (flags.mcpPrompt === undefined && Object.keys(flags.arg).length)
    throw new AppError('--arg is for the arguments of an --mcp-prompt prompt');
  const config = await effectiveConfig({}, flags, io.cwd);
  const loaded = await loadAgent(modulePath, flags.export, io.cwd);
  const model = await configuredModel(config, io.cwd, io.env);
  const agent = buildAgent(loaded, config, model);
  const view = new LiveView((line) => io.out(line));
  const hooks = flags.json
    ? []
    : [
        view.hook,
        (e: Parameters<typeof view.hook>[0]) => {
          if (e.type === 'run_start')
            io.out(`run ${e.runId}  agent ${agent.name}  model ${(model ?? agent.model)?.id ?? '-'}\n`);
        },
      ];
  const result = await withTelemetry(io, config, (tap) =>
    withMcp(config, io, async (mcp) => {
      const task = flags.mcpPrompt !== undefined ? await promptTask(mcp, flags.mcpPrompt, flags.arg) : flags.task!;
      const signingKey = await loadTraceKey(io.env, { create: true });
      const onApproval = flags.auto ? autoApprove : io.tty ? ttyApprover(io.tty, (t) => io.err(t)) : undefined;
      const engine = await buildEngine({
        agent,
        loaded,
        config,
        cwd: io.cwd,
        hooks,
        warn: (l) => io.err(l),
        ...(mcp ? { mcp } : {}),
        signingKey,
        redactor: io.redactor,
        tap,
        ...(onApproval ? { onApproval } : {}),
      });
      return engine.run(task);
    }),
  );
  if (flags.json) io.out(JSON.stringify(runSummary(result), null, 2) + '\n');
  else printRunEnd(io, result);
  io.exitCode = runExitCode(result);
}

/** The task of `--mcp-prompt server/name --arg k=v`. */
async function promptTask(
  mcp: Parameters<typeof mcpPromptTask>[0] | undefined,
  ref: string,
  args: Record<string, string>,
): Promise<TaskInput> {
  if (!mcp) throw new AppError('--mcp-prompt needs the MCP server in the config (an mcp: section, see docs/mcp.md)');
  try {
    const { server, name } = parsePromptRef(ref);
    return { id: newId('task'), ...(await mcpPromptTask(mcp, server, name, args)) };
  } catch (error) {
    throw new AppError(`--mcp-prompt: ${(error as Error).message.split('\n')[0]}`);
  }
}
