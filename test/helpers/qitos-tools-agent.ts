import type { ModelRequest, Task } from '../../src/core/index.js';
import { baseState } from '../../src/core/index.js';
import { AgentModule, type AgentModuleOptions } from '../../src/engine/agent-module.js';
import { jsonParser } from '../../src/kit/parsers/json-parser.js';
import { ScriptedModel, type ScriptReply } from '../../src/models/scripted-model.js';

/** A model-path agent with the JSON parser: the smallest real agent that calls tools. */
export class ToolsTestAgent extends AgentModule {
  override buildSystemPrompt(): string {
    return 'You are a test agent.';
  }
  initState(task: Task) {
    return baseState(task, 8);
  }
}

/** A ToolsTestAgent driven by a scripted model. */
export function scriptedAgent(
  script: ScriptReply[],
  options: Omit<AgentModuleOptions, 'model' | 'parser'> = {},
): { agent: ToolsTestAgent; model: ScriptedModel } {
  const model = new ScriptedModel(script);
  return { agent: new ToolsTestAgent({ ...options, model, parser: jsonParser() }), model };
}

/** A JSON reply that calls one tool. */
export function callReply(name: string, args: Record<string, unknown>): string {
  return JSON.stringify({ thought: `use ${name}`, action: { name, args } });
}

/** A JSON reply with a final answer. */
export function finalReply(answer: string): string {
  return JSON.stringify({ final_answer: answer });
}

/**
 * The tool results (output or error text) the model was shown in a request: native `tool` messages, and
 * the "Observation from <tool>: ..." user messages that follow text-parsed calls.
 */
export function toolResultsIn(request: ModelRequest): Array<{ name: string; output: string; isError: boolean }> {
  const out: Array<{ name: string; output: string; isError: boolean }> = [];
  for (const m of request.messages) {
    if (m.role === 'tool') for (const p of m.content) out.push({ name: p.name, output: p.output, isError: p.isError });
    if (m.role !== 'user') continue;
    for (const p of m.content) {
      if (p.type !== 'text') continue;
      for (const x of p.text.matchAll(
        /^Observation( \(error\))? from ([\w-]+): ([\s\S]*?)(?=\n\nObservation|$(?![\s\S]))/gm,
      )) {
        out.push({ name: x[2], output: x[3], isError: !!x[1] });
      }
    }
  }
  return out;
}
