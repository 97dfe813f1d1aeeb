/**
 * The file-edits suite's agent module. `createAgent` gives each task a fresh MemoryEnv seeded with the task's
 * `inputs.files`. With a model the agent edits on the model path (JSON decisions; read, edit, write, glob).
 * Without one it is a deterministic oracle that applies `inputs.edits` one per step, so the suite runs
 * offline in CI.
 */
import {
  AgentModule,
  baseState,
  decide,
  type AgentModuleOptions,
  type Decision,
  type State,
  type Task,
} from '../../src/index.js';
import { MemoryEnv } from '../../src/envs/index.js';
import { jsonParser } from '../../src/kit/parsers/index.js';
import { editTool, globTool, readTool, writeTool } from '../../src/kit/tools/index.js';
import type { AgentFactoryContext, BenchAgent } from '../../src/bench/index.js';

type Edit = { path: string; find: string; replace: string } | { path: string; write: string };

interface EditState extends State {
  plan: Edit[];
  next: number;
}

export class FileEditAgent extends AgentModule<EditState> {
  constructor(options: AgentModuleOptions = {}) {
    super({
      parser: jsonParser(),
      tools: [readTool(), editTool(), writeTool(), globTool()],
      name: 'file-edits',
      ...options,
    });
  }

  initState(task: Task): EditState {
    const plan = Array.isArray(task.inputs.edits) ? (task.inputs.edits as Edit[]) : [];
    return { ...baseState(task, 12), plan, next: 0 };
  }

  override buildSystemPrompt(): string {
    return (
      `You edit files in a workspace. Read a file before editing it, change only what the task ` +
      `asks, then give a one-line final ` +
      `answer.\n${this.parser!.instructions(this.tools.specs())}`
    );
  }

  override decide(state: EditState): Decision | undefined {
    if (this.model) return undefined; // model path
    const edit = state.plan[state.next];
    if (!edit) return decide.final(`applied ${state.plan.length} edit(s)`);
    return 'write' in edit
      ? decide.call('write', { path: edit.path, content: edit.write })
      : decide.call('edit', { path: edit.path, oldString: edit.find, newString: edit.replace });
  }

  override reduce(state: EditState): EditState {
    return this.model ? state : { ...state, next: state.next + 1 };
  }
}

/** One agent and one seeded in-memory workspace per task. */
export function createAgent({ task, model }: AgentFactoryContext): BenchAgent {
  const files = (task.inputs.files ?? {}) as Record<string, string>;
  return { agent: new FileEditAgent({ model }), env: new MemoryEnv({ files }) };
}
