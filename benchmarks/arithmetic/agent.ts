/**
 * The arithmetic suite's agent. With a model it is a plain tool-using agent on the model path (JSON decisions,
 * the `calculate` tool). Without one it is a deterministic oracle: it calls `calculate` on the task's
 * `inputs.expression` and answers with the value the tool computed, so the suite runs offline in CI.
 */
import {
  AgentModule,
  baseState,
  decide,
  type ActionResult,
  type AgentModuleOptions,
  type Decision,
  type State,
  type Task,
} from '../../src/index.js';
import { jsonParser } from '../../src/kit/parsers/index.js';
import { calculateTool } from '../../src/kit/tools/index.js';

interface ArithmeticState extends State {
  expression: string;
  lastValue: number | null;
}

export default class ArithmeticAgent extends AgentModule<ArithmeticState> {
  constructor(options: AgentModuleOptions = {}) {
    super({ parser: jsonParser(), tools: [calculateTool()], name: 'arithmetic', ...options });
  }

  initState(task: Task): ArithmeticState {
    const expression =
      typeof task.inputs.expression === 'string'
        ? task.inputs.expression
        : (/compute\s+(.+?)\.?\s*(use|$)/i.exec(task.objective)?.[1] ?? '');
    return { ...baseState(task, 6), expression, lastValue: null };
  }

  override buildSystemPrompt(): string {
    return (
      `You solve arithmetic tasks. Always use the calculate tool, then give the number it ` +
      `returned as the final answer.\n${this.parser!.instructions(this.tools.specs())}`
    );
  }

  override decide(state: ArithmeticState): Decision | undefined {
    if (this.model) return undefined; // model path
    if (state.lastValue === null)
      return decide.call('calculate', { expression: state.expression }, 'evaluate the expression');
    return decide.final(String(state.lastValue));
  }

  override reduce(state: ArithmeticState, _obs: unknown, _d: Decision, results: ActionResult[]): ArithmeticState {
    const done = results.find((r) => r.state.status === 'completed')?.state;
    const value = done?.status === 'completed' ? done.metadata?.value : undefined;
    return typeof value === 'number' ? { ...state, lastValue: value } : state;
  }
}
