// A TypeScript agent module as a user writes it against the installed package (run by `qitos run agent.ts`).
import { AgentModule, baseState, type AgentModuleOptions, type State, type Task } from 'qitos-ts';
import { jsonParser } from 'qitos-ts/parsers';
import { calculateTool } from 'qitos-ts/tools';

export default class CalcAgent extends AgentModule<State> {
  constructor(options: AgentModuleOptions = {}) {
    super({ ...options, parser: jsonParser(), tools: [calculateTool()] });
  }

  initState(task: Task): State {
    return baseState(task, 5);
  }

  override buildSystemPrompt(): string {
    return 'Use the calculate tool, then give the final answer.';
  }
}
