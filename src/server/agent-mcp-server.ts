import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { AbortedError } from '../core/index.js';
import { finishReason } from './chat-completion.js';
import type { ServedAgent } from '../app/served-agents.js';

/** The tool name of an agent: `run_<id>`, with characters MCP tool names do not allow replaced by `_`. */
export function runToolName(id: string): string {
  return `run_${id.replace(/[^A-Za-z0-9_-]/g, '_')}`.slice(0, 64);
}

/** The cap on runs at once an MCP face shares across its sessions: a slot is taken before a run starts. */
export interface RunSlots {
  /** Runs at once; one more is refused. */
  max: number;
  /** Takes a slot; false when all `max` are taken. */
  reserve(): boolean;
  /** Gives a slot back. */
  release(): void;
}

/**
 * An MCP server with one tool per agent, `run_<id>`: the task in; the final answer, the run id of its trace and
 * the stop reason out. When the caller sends a progress token, every step the run finishes is a progress
 * notification (`progress` = the step, `message` what it did). A cancelled request interrupts the run. With
 * `slots`, a call past the cap is a tool error (`isError`) telling the caller to retry, and no run starts.
 */
export function agentMcpServer(
  agents: ServedAgent[],
  info: { name: string; version: string },
  slots?: RunSlots,
): McpServer {
  const server = new McpServer(info);
  for (const { id, engine } of agents) {
    server.registerTool(
      runToolName(id),
      {
        description:
          `Runs the qitos agent "${id}" (${engine.agent.name}) on a task and returns its final ` +
          `answer and the id of the run's trace.`,
        inputSchema: { task: z.string().min(1).describe('what the agent should do') },
        outputSchema: { answer: z.string().nullable(), runId: z.string(), stopReason: z.string(), steps: z.number() },
      },
      async ({ task }, extra) => {
        if (slots && !slots.reserve()) {
          return {
            content: [
              {
                type: 'text' as const,
                text: `the server is running ${slots.max} runs, its limit (--max-runs); retry shortly`,
              },
            ],
            isError: true,
          };
        }
        const token = extra._meta?.progressToken;
        const controller = new AbortController();
        const onAbort = () => controller.abort(new AbortedError('the MCP client cancelled the call'));
        extra.signal.addEventListener('abort', onAbort, { once: true });
        let tools: string[] = [];
        try {
          for await (const e of engine.stream(task, { signal: controller.signal })) {
            if (e.type === 'tool_state' && (e.state.status === 'completed' || e.state.status === 'error'))
              tools.push(e.tool);
            else if (e.type === 'phase_end' && e.phase === 'check_stop' && token !== undefined) {
              const did = tools.length ? `called ${tools.join(', ')}` : 'decided';
              tools = [];
              await extra.sendNotification({
                method: 'notifications/progress',
                params: { progressToken: token, progress: e.step, message: `step ${e.step}: ${did}` },
              });
            } else if (e.type === 'result') {
              const r = e.result;
              const failed = finishReason(r.stopReason) === 'error';
              const structured = { answer: r.finalResult, runId: r.runId, stopReason: r.stopReason, steps: r.steps };
              const text = failed
                ? `the run ended ${r.stopReason}: ${r.stopMessage} (trace ${r.runId})`
                : (r.finalResult ?? `no answer: the run ended ${r.stopReason} (trace ${r.runId})`);
              return {
                content: [{ type: 'text' as const, text }],
                structuredContent: structured,
                ...(failed ? { isError: true } : {}),
              };
            }
          }
          throw new Error('the run ended without a result');
        } finally {
          extra.signal.removeEventListener('abort', onAbort);
          slots?.release();
        }
      },
    );
  }
  return server;
}
