import { z } from 'zod';
import { AgentModule, BaseState, Engine, baseState, defineTool, type ActionResult, type Decision, type Task } from '../src/index.js';
import { ScriptedModel } from '../src/models/index.js';
import { jsonParser } from '../src/kit/parsers/index.js';

// Typed state: the base fields plus what this experiment tracks.
const MyState = BaseState.extend({ notes: z.array(z.string()) });
type MyState = z.infer<typeof MyState>;

const add = defineTool({ id: 'add', description: 'Add two numbers', parameters: z.object({ a: z.number(), b: z.number() }), execute: ({ a, b }) => String(a + b) });

class MyAgent extends AgentModule<MyState> {
  initState(task: Task): MyState { return { ...baseState(task, 6), notes: [] }; }
  override buildSystemPrompt() { return this.parser!.instructions(this.tools.specs()); }
  override reduce(state: MyState, _obs: unknown, d: Decision, results: ActionResult[]): MyState {
    return { ...state, notes: [...state.notes, ...results.map((r) => `${r.name} -> ${r.output}`), ...(d.rationale ? [d.rationale] : [])] };
  }
}

const model = new ScriptedModel(['{"thought":"add","action":{"name":"add","args":{"a":19,"b":23}}}', '{"final_answer":"42"}']);
const result = await new Engine({ agent: new MyAgent({ model, parser: jsonParser(), tools: [add] }) }).run('compute 19+23');
console.log(result.stopReason, result.finalResult, result.state.notes, result.traceDir);
