/**
 * A calculator agent: a ReActAgent with the built-in `calculate` tool (a safe arithmetic evaluator).
 *
 *   npx tsx examples/calculator-agent.ts                      offline, on a ScriptedModel, sample task
 *   QITOS_MODEL=openai:gpt-4o-mini npx tsx examples/calculator-agent.ts "What is 17% of 2,340?"
 *
 * Any "provider:model" that `createModel` knows works online (the provider's API key comes from its usual
 * environment variable, e.g. OPENAI_API_KEY or DEEPSEEK_API_KEY). The run's trace goes to traces/.
 */
import type { ModelRequest } from '../src/core/index.js';
import { Engine } from '../src/engine/engine.js';
import { ReActAgent, type ReActAgentOptions } from '../src/kit/agents/index.js';
import { calculateTool } from '../src/kit/tools/index.js';
import { ScriptedModel, createModel } from '../src/models/index.js';
import { runAsScript } from './run-as-script.js';

/** A ReActAgent that does arithmetic only through the `calculate` tool. */
export class CalculatorAgent extends ReActAgent {
  constructor(options: Omit<ReActAgentOptions, 'tools'> = {}) {
    super({
      maxSteps: 10,
      systemPrompt:
        'Do every arithmetic step with the calculate tool; never compute in your head. Give the ' +
        'final answer as a number with its unit, if any.',
      ...options,
      tools: [calculateTool()],
    });
  }
}
export default CalculatorAgent;

/** The sample task the scripted model answers. */
export const SAMPLE_TASK =
  'Pens cost 3.5 each. Ada buys 12 pens and pays with a 50 note. How much change does she get?';

/** The number at the end of the latest `calculate` observation ("12 * 3.5 = 42" -> "42"). */
function lastResult(request: ModelRequest): string {
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const m = request.messages[i];
    if (m.role !== 'user') continue;
    for (const p of m.content) {
      const hit = p.type === 'text' ? /Observation from calculate: .* = (\S+)\s*$/.exec(p.text) : null;
      if (hit) return hit[1];
    }
  }
  throw new Error('the scripted calculator expected a calculate observation in the request');
}

/**
 * A ScriptedModel that solves SAMPLE_TASK the way a model would: each reply reads the previous tool result
 * from the request, so the answer comes from the tool, not from the script.
 */
export function scriptedCalculatorModel(): ScriptedModel {
  return new ScriptedModel(
    [
      'Thought: 12 pens at 3.5 each cost 12 * 3.5.\nAction: calculate(expression="12 * 3.5")',
      (req) =>
        `Thought: The pens cost ${lastResult(req)}; the change is 50 minus that.\nAction: calculate(expression="50 - ${lastResult(req)}")`,
      (req) => `Thought: The calculation is done.\nFinal Answer: ${lastResult(req)}`,
    ],
    { id: 'scripted:calculator' },
  );
}

async function main(): Promise<void> {
  const spec = process.env.QITOS_MODEL;
  const model = spec ? createModel(spec) : scriptedCalculatorModel();
  const task = spec ? process.argv.slice(2).join(' ') || SAMPLE_TASK : SAMPLE_TASK;
  const agent = new CalculatorAgent({ model });
  const engine = new Engine({
    agent,
    handleSigint: true,
    trace: { agentSource: { module: 'examples/calculator-agent.ts', export: 'CalculatorAgent' } },
    hooks: [
      (e) => {
        if (e.type === 'tool_state' && (e.state.status === 'completed' || e.state.status === 'error')) {
          console.log(
            `  step ${e.step}: ${e.tool}(${JSON.stringify(e.state.input)}) ` +
              `-> ${e.state.status === 'completed' ? e.state.output : `error: ${e.state.error}`}`,
          );
        }
      },
    ],
  });
  console.log(`Task: ${task}\nModel: ${model.id}`);
  const r = await engine.run(task);
  console.log(`Answer: ${r.finalResult ?? '(none)'}  [${r.stopReason}: ${r.stopMessage}]`);
  console.log(`Steps: ${r.steps}, tool calls: ${r.state.metrics.toolCalls}, trace: ${r.traceDir}`);
  if (r.stopReason !== 'final') process.exitCode = 1;
}

runAsScript(import.meta.url, main);
