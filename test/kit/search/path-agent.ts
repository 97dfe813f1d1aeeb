import { z } from 'zod';
import { AgentModule } from '../../../src/engine/agent-module.js';
import {
  baseState,
  decide,
  defineTool,
  type ActionResult,
  type Decision,
  type State,
  type Task,
} from '../../../src/core/index.js';

/** A tree to search: node -> children with the agent's own score of each; a node without children is a goal when named G*. */
export const TREE: Record<string, Array<[string, number]>> = {
  S: [
    ['A', 0.9],
    ['B', 0.5],
  ],
  A: [
    ['A1', 0.1],
    ['A2', 0.2],
  ],
  A1: [],
  A2: [],
  B: [['G', 1]],
};

export interface PathState extends State {
  path: string[];
}

const move = defineTool({
  id: 'move',
  description: 'Moves to a node.',
  parameters: z.object({ to: z.string() }),
  execute: ({ to }) => to,
});

/**
 * Walks TREE from S: each step proposes the current node's children as a branch (scored by TREE); a goal node
 * answers with the path; a dead end (no children, not a goal) proposes nothing but a give-up answer scored 0.
 */
export class PathAgent extends AgentModule<PathState> {
  private readonly tree: Record<string, Array<[string, number]>>;
  /** Options as the CLI passes them (`{ model, ...config.agent }`); `tree` replaces TREE. */
  constructor(options: { tree?: Record<string, Array<[string, number]>> } = {}) {
    super({ tools: [move] });
    this.tree = options.tree ?? TREE;
  }
  initState(task: Task): PathState {
    return { ...baseState(task, 20), path: ['S'] };
  }
  override decide(state: PathState): Decision {
    const here = state.path[state.path.length - 1];
    if (here.startsWith('G')) return decide.final(state.path.join('>'));
    const children = this.tree[here] ?? [];
    if (!children.length) return { mode: 'branch', candidates: [decide.final(`stuck at ${here}`)], scores: [0] };
    return {
      mode: 'branch',
      candidates: children.map(([to]) => decide.call('move', { to })),
      scores: children.map(([, s]) => s),
    };
  }
  override reduce(state: PathState, _o: unknown, _d: Decision, results: ActionResult[]): PathState {
    const moved = results.find((r) => r.name === 'move' && r.status === 'success');
    return moved ? { ...state, path: [...state.path, String(moved.output)] } : state;
  }
}
export default PathAgent;
