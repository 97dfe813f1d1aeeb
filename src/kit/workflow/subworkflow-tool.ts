import { z } from 'zod';
import { defineTool } from '../../core/index.js';
import { runChildThread, type ThreadHost } from './child-thread.js';
import { loadWorkflowFile } from './parse-workflow-yaml.js';
import type { WorkflowState } from './thread-state.js';
import { WorkflowDefinition } from './workflow-definition.js';

/** The id of the internal tool a subworkflow node's step calls (never offered to a model). */
export const SUBWORKFLOW_TOOL = '_workflow_subflow';

/** Its arguments, built once: every child thread's agent registers the tool anew, and building a zod schema per agent was
 * most of the cost of making a branch's agent. */
const SubworkflowArgs = z.object({ node: z.string() });

/**
 * The tool through which a subworkflow node runs: the child workflow (inline, or a file relative to the parent
 * workflow's folder) runs as a linked child thread with the parent's variables; its output is its final
 * variables as JSON. Past `maxSubworkflowDepth` nested subworkflows it fails, naming the chain of nodes.
 */
export function subworkflowTool(agent: ThreadHost) {
  return defineTool({
    id: SUBWORKFLOW_TOOL,
    description: 'Runs a workflow subworkflow node (internal).',
    parameters: SubworkflowArgs,
    async execute(args, ctx) {
      const node = agent.workflow.node(args.node);
      if (node.kind !== 'subworkflow') throw new Error(`node "${args.node}" is not a subworkflow`);
      const { chain: outer, max } = agent.subworkflows;
      const chain = [...outer, `${agent.workflow.source?.name ?? agent.workflow.name} (node "${node.id}")`];
      if (chain.length > max)
        throw new Error(
          `subworkflows nest deeper than ${max} (maxSubworkflowDepth): ${chain.join(' -> ')}; a workflow that includes itself never ends`,
        );
      const base = agent.workflow.source?.baseDir ?? process.cwd();
      const def = node.inline
        ? WorkflowDefinition.create(node.inline as never, {
            name: `${agent.workflow.source?.name ?? agent.workflow.name}#${node.id}`,
            baseDir: base,
          })
        : await loadWorkflowFile(node.path!, base);
      const vars = (ctx.state as WorkflowState).thread.vars;
      const r = await runChildThread(
        agent.childAgent({ workflow: def, thread: { subworkflow: node.id }, subworkflowChain: chain }),
        ctx,
        {
          runId: `${ctx.runId}.s${ctx.step}.${node.id}`,
          objective: `subworkflow ${def.name} of node ${node.id}`,
          vars,
        },
      );
      const thread = r.state?.thread;
      if (r.stopReason !== 'final' || thread?.status !== 'completed')
        throw new Error(
          `subworkflow "${def.name}" did not ` +
            `complete: ${thread?.reason ?? `${r.stopReason}: ${r.stopMessage}`}${r.traceDir ? ` (trace: ${r.traceDir})` : ''}`,
        );
      return {
        output: JSON.stringify(thread.vars),
        title: `subworkflow ${def.name}`,
        metadata: { runId: r.runId, traceDir: r.traceDir, finalResult: r.finalResult },
      };
    },
  });
}
