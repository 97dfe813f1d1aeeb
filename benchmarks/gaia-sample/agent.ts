/**
 * The agent of GAIA-format suites: a model-path agent with the calculate tool that is told GAIA's answer
 * rules (a number without units or thousands separators, a few words, or a comma-separated list). It needs a
 * model; without one every task is recorded as a setup error that says so.
 */
import { AgentModule, baseState, type AgentModuleOptions, type State, type Task } from '../../src/index.js';
import { jsonParser } from '../../src/kit/parsers/index.js';
import { calculateTool } from '../../src/kit/tools/index.js';
import type { AgentFactoryContext } from '../../src/bench/index.js';

const GAIA_RULES =
  'Your final answer should be a number OR as few words as possible OR a comma separated list of numbers and/or strings. ' +
  'A number: no commas, no units such as $ or percent signs unless asked. A string: no ' +
  'articles, no abbreviations, digits in plain text unless asked. ' +
  'A list: apply the rules above to each element.';

export class GaiaAgent extends AgentModule<State> {
  constructor(options: AgentModuleOptions = {}) {
    super({ parser: jsonParser(), tools: [calculateTool()], name: 'gaia', ...options });
  }

  initState(task: Task): State {
    const s = baseState(task, 10);
    const file = task.resources.file;
    if (typeof file === 'string') s.task = `${task.objective}\n\n(Attached file: ${file})`;
    return s;
  }

  override buildSystemPrompt(): string {
    return `You are a general AI assistant answering questions. ${GAIA_RULES}\n${this.parser!.instructions(this.tools.specs())}`;
  }
}

export function createAgent({ model }: AgentFactoryContext): GaiaAgent {
  if (!model) throw new Error('the gaia-sample suite needs a model: pass --model provider:model');
  return new GaiaAgent({ model });
}
