/**
 * The offline demo: `npm run demo`.
 * 1. A ReAct calculator agent (built-in `calculate` tool) solves a word problem on the built-in ScriptedModel
 *    and writes its trace under traces/.
 * 2. `qitos replay` re-runs the trace from the recorded model outputs and checks every decision is the same
 *    (what a researcher runs after a refactor).
 * 3. It prints the commands to look at the run.
 */
import { isAbsolute, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Engine } from '../src/engine/engine.js';
import { main as qitos } from '../src/cli/main.js';
import { moduleSha256 } from '../src/app/module-hash.js';
import { loadTraceKey } from '../src/trace/index.js';
import { CalculatorAgent, SAMPLE_TASK, scriptedCalculatorModel } from './calculator-agent.js';

// Recorded in the manifest so `qitos replay` can rebuild the agent: relative to the working folder when inside it.
const modulePath = fileURLToPath(new URL('./calculator-agent.ts', import.meta.url));
const rel = relative(process.cwd(), modulePath);
const agentModule = rel.startsWith('..') || isAbsolute(rel) ? modulePath : rel;

const engine = new Engine({
  agent: new CalculatorAgent({ model: scriptedCalculatorModel() }),
  // Signed with this user's trace key, so `qitos replay` trusts the agent module the manifest names; its sha-256 lets
  // replay check that the file at that path is still the one that ran.
  trace: {
    dir: 'traces',
    agentSource: { module: agentModule, export: 'CalculatorAgent', sha256: await moduleSha256(modulePath) },
    signingKey: await loadTraceKey(process.env, { create: true }),
  },
  handleSigint: true,
  hooks: [
    (e) => {
      if (e.type === 'tool_state' && e.state.status === 'completed')
        console.log(`  step ${e.step}: ${e.tool}(${JSON.stringify(e.state.input)}) -> ${e.state.output}`);
    },
  ],
});

console.log(`task: ${SAMPLE_TASK}`);
const result = await engine.run({ id: 'demo-1', objective: SAMPLE_TASK });
console.log(`stop reason: ${result.stopReason}`);
console.log(`final result: ${result.finalResult}`);
console.log(`steps: ${result.steps}, tool calls: ${result.state.metrics.toolCalls}`);
console.log(`trace: ${result.traceDir}`);
if (result.stopReason !== 'final' || !result.traceDir) {
  process.exitCode = 1;
} else {
  const trace = relative(process.cwd(), result.traceDir) || result.traceDir;
  console.log(`\nreplaying ${trace} from its recorded model outputs:`);
  const code = await qitos(['replay', trace, '--trace-dir', 'traces']);
  console.log(`\nlook at it:  npx qitos view ${trace} -o run.html   |   npx qitos inspect ${trace}`);
  process.exitCode = code;
}
