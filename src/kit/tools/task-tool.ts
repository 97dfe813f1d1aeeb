import path from 'node:path';
import { z } from 'zod';
import type { Budget, State, TaskInput, ToolContext } from '../../core/index.js';
import { borrowEnv, defineTool, tightestBudget } from '../../core/index.js';
import { Engine, type EngineOptions } from '../../engine/engine.js';
import { toolError } from './tool-env.js';

/** What the sub-agent factory is asked for. */
export interface SubAgentRequest {
  prompt: string;
  description: string;
  /** 1 for a sub-agent of a top-level run, 2 for its own sub-agents, ... */
  depth: number;
  /** The parent's tool context (env, services, run id, signal). */
  ctx: ToolContext;
}

/**
 * How to run one sub-agent: Engine options (agent required; tracing and the parent link are set by the task
 * tool) and task fields. Without `env`, the child works in the parent's env (borrowed: the child's end does not
 * close it).
 */
export type SubAgentSpec = Omit<EngineOptions<State>, 'trace' | 'parent'> & {
  /** Extra task fields (budget, inputs, metadata); the objective is the prompt. */
  task?: Omit<Partial<TaskInput>, 'objective'>;
};

/** Options of the task tool. */
export interface TaskToolOptions {
  /** Builds the sub-agent for one call (a fresh agent per call keeps runs independent). */
  createAgent(request: SubAgentRequest): SubAgentSpec | Promise<SubAgentSpec>;
  /** The tool description the model reads (say what the sub-agent is good at). */
  description?: string;
  /** Folder for child traces (default `<parent trace>/subtasks`; no child trace when the parent has none). */
  traceDir?: string;
  /** Deepest nesting of sub-agents (default 3). */
  maxDepth?: number;
  /** Budget of each child run (the tightest of this, the spec's, the task's and what is left of the parent's applies). */
  budget?: Budget;
}

/**
 * `task`: hands a self-contained piece of work to a sub-agent, run as a child Engine run with its own
 * trace, linked to the parent through `ctx.childLink()`: the child's manifest names the parent
 * (`parent: { runId, path, kind: 'subtask', depth }`), it gets what is left of the parent's token, cost and
 * time budget as its share, and every model call it makes also counts in the parent's usage and budgets. The
 * parent's reply gets a `subtask` part after the call's tool part, and the tool result carries `childRunId` and
 * `childTraceDir` in its metadata, so traces link both ways. The child shares the parent's abort signal (a
 * timed-out or interrupted call stops it) and services.
 */
export function taskTool(options: TaskToolOptions) {
  if (!options || typeof options.createAgent !== 'function')
    throw new Error('taskTool needs { createAgent(request) }: a factory that builds the sub-agent');
  const maxDepth = options.maxDepth ?? 3;
  return defineTool({
    id: 'task',
    description:
      options.description ??
      'Hand a self-contained piece of work to a sub-agent and get its final answer back. Give ' +
        'it everything it needs in the prompt: it does not see this conversation.',
    parameters: z.object({
      description: z.string().min(1).max(120).describe('What the sub-task is, in 3-8 words.'),
      prompt: z.string().min(1).describe('The full instructions for the sub-agent.'),
    }),
    async execute(args, ctx) {
      const parent = ctx.childLink();
      const depth = ctx.depth + 1;
      if (depth > maxDepth)
        throw toolError(
          `sub-agents may nest at most ${maxDepth} deep; this call would be level ${depth}. Do the work here instead.`,
        );
      const spec = await options.createAgent({ prompt: args.prompt, description: args.description, depth, ctx });
      const { task: taskFields, ...engineOptions } = spec;
      const runId = engineOptions.runId ?? `${ctx.runId}.${ctx.callId}`.replace(/[^A-Za-z0-9_.-]/g, '_');
      const traceBase = options.traceDir ?? (ctx.traceDir ? path.join(ctx.traceDir, 'subtasks') : undefined);
      const childTraceDir = traceBase ? path.resolve(traceBase, runId) : null;
      ctx.metadata({ title: args.description, metadata: { childRunId: runId, childTraceDir } });
      // The parent's env (the default) is borrowed: the child's end must not close what the parent still uses.
      const env =
        engineOptions.env === undefined || engineOptions.env === ctx.env ? borrowEnv(ctx.env) : engineOptions.env;
      const engine = new Engine<State>({
        ...engineOptions,
        env,
        runId,
        ...(options.budget || engineOptions.budget
          ? { budget: tightestBudget(options.budget, engineOptions.budget) }
          : {}),
        services: { ...ctx.services, ...engineOptions.services },
        parent,
        trace: traceBase ? { dir: traceBase, config: { subtask: { description: args.description, depth } } } : false,
      });
      const result = await engine.run(
        { id: `${ctx.runId}/${ctx.callId}`, ...taskFields, objective: args.prompt },
        { signal: ctx.signal },
      );
      const metadata = {
        childRunId: result.runId,
        childTraceDir: result.traceDir,
        stopReason: result.stopReason,
        steps: result.steps,
        usage: result.usage,
      };
      if (result.stopReason !== 'final' || result.finalResult === null) {
        throw toolError(
          `the sub-agent stopped without an answer after ${result.steps} ` +
            `step${result.steps === 1 ? '' : 's'}: ${result.stopReason} (${result.stopMessage})` +
            (result.traceDir ? `. Its trace: ${result.traceDir}` : ''),
        );
      }
      const model = engineOptions.model ?? engineOptions.agent.model;
      const subtask = {
        type: 'subtask' as const,
        prompt: args.prompt,
        description: args.description,
        agent: engineOptions.agent.name,
        ...(model ? { model: model.id } : {}),
        runId: result.runId,
        ...(result.traceDir ? { trace: result.traceDir } : {}),
      };
      return { output: result.finalResult, title: args.description, metadata, parts: [subtask] };
    },
  });
}
