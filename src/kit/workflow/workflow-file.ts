import { z } from 'zod';
import { NodeId } from './nodes/node-fields.js';

/** An edge: after `from` is done, the workflow goes on at `to` (a fork starts one branch per edge). */
export const WorkflowEdge = z.strictObject({ from: NodeId, to: NodeId });
export type WorkflowEdge = z.infer<typeof WorkflowEdge>;

/**
 * The JSON (and YAML) form of a workflow: its nodes (each `{ id, kind, ...config }`), the edges between them,
 * and default variables. Condition nodes name their targets in `then`/`else` instead of edges.
 */
export const WorkflowFile = z.strictObject({
  name: z.string().min(1).default('workflow'),
  description: z.string().optional(),
  /** Default variables (a run's `vars` override them). */
  vars: z.record(z.string(), z.unknown()).default({}),
  nodes: z.array(z.record(z.string(), z.unknown())).min(1),
  edges: z.array(WorkflowEdge).default([]),
});
export type WorkflowFile = z.infer<typeof WorkflowFile>;
