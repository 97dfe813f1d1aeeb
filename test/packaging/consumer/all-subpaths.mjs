// An ESM consumer: imports every subpath the installed package exports, then runs an Engine offline.
// Prints one JSON line: { exports: { "<subpath>": [runtime export names] }, run: { stopReason, finalResult } }.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const pkg = JSON.parse(readFileSync(createRequire(import.meta.url).resolve('qitos-ts/package.json'), 'utf8'));
const exports = {};
for (const key of Object.keys(pkg.exports)) {
  if (key === './package.json') continue;
  const specifier = key === '.' ? 'qitos-ts' : `qitos-ts/${key.slice(2)}`;
  exports[specifier] = Object.keys(await import(specifier)).sort();
}

const { AgentModule, Engine, baseState } = await import('qitos-ts');
const { jsonParser } = await import('qitos-ts/parsers');
const { calculateTool } = await import('qitos-ts/tools');
const { ScriptedModel, MemoryEnv } = await import('qitos-ts/testing');
const { readTrace } = await import('qitos-ts/trace');

class Calc extends AgentModule {
  initState(task) {
    return baseState(task, 4);
  }
}
const model = new ScriptedModel([
  '{"action": {"name": "calculate", "args": {"expression": "6 * 7"}}}',
  '{"final_answer": "42"}',
]);
const agent = new Calc({ model, parser: jsonParser(), tools: [calculateTool()] });
const result = await new Engine({ agent, env: new MemoryEnv(), trace: { dir: 'consumer-traces' } }).run(
  'What is 6 * 7?',
);
const trace = await readTrace(result.traceDir);
console.log(
  JSON.stringify({
    exports,
    run: { stopReason: result.stopReason, finalResult: result.finalResult, steps: trace.steps.length },
  }),
);
