/**
 * The offline demo: `npm run demo`.
 * A calculator agent (JSON decisions, one `calculate` tool) solves a task on the built-in ScriptedModel,
 * writes its trace under traces/, and prints where it is and how to look at it.
 */
import { z } from 'zod';
import { AgentModule, Engine, ScriptedModel, baseState, defineTool, jsonParser, type State, type Task } from '../src/index.js';

const multiply = defineTool({
  id: 'multiply',
  description: 'Multiply two numbers.',
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => String(a * b),
});
const add = defineTool({
  id: 'add',
  description: 'Add two numbers.',
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => String(a + b),
});

class CalculatorAgent extends AgentModule<State> {
  initState(task: Task): State {
    return baseState(task, 8);
  }
  override buildSystemPrompt(): string {
    return `You solve arithmetic with tools, one step at a time.\n${this.parser!.instructions(this.tools.specs())}`;
  }
}

// What a model would answer; swap in createModel('openai:gpt-4o-mini') to run it online.
const model = new ScriptedModel([
  { reasoning: '17 * 23 first.', text: '{"thought":"multiply first","action":{"name":"multiply","args":{"a":17,"b":23}}}', usage: { input: 180, output: 24 } },
  { text: '{"thought":"then add 9","action":{"name":"add","args":{"a":391,"b":9}}}', usage: { input: 230, output: 22 } },
  { text: '{"thought":"done","final_answer":"400"}', usage: { input: 270, output: 12 } },
]);

const agent = new CalculatorAgent({ model, parser: jsonParser(), tools: [multiply, add] });
const engine = new Engine({
  agent,
  trace: { dir: 'traces', agentSource: { module: 'examples/demo.ts' } },
  handleSigint: true,
  hooks: [
    (e) => {
      if (e.type === 'tool_state' && e.state.status === 'completed') console.log(`  step ${e.step}: ${e.tool}(${JSON.stringify(e.state.input)}) -> ${e.state.output}`);
    },
  ],
});

console.log('task: compute 17 * 23 + 9');
const result = await engine.run({ id: 'demo-1', objective: 'compute 17 * 23 + 9' });
console.log(`stop reason: ${result.stopReason}`);
console.log(`final result: ${result.finalResult}`);
console.log(`steps: ${result.steps}, tokens in/out: ${result.usage.tokens.input}/${result.usage.tokens.output}`);
console.log(`trace: ${result.traceDir}`);
if (result.stopReason !== 'final') process.exitCode = 1;
