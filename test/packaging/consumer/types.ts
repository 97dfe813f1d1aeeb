// Type-checked by a strict consumer (tsconfig.nodenext.json, tsconfig.bundler.json): one use of each subpath.
import { z } from 'zod';
import { Engine, defineTool, type Model, type Policy, type Env, type Parser, type Tool } from 'qitos-ts';
import { ReActAgent } from 'qitos-ts/agents';
import { loadSuite, type Suite } from 'qitos-ts/bench';
import { HostEnv } from 'qitos-ts/envs';
import { McpManager } from 'qitos-ts/mcp';
import { createModel } from 'qitos-ts/models';
import { jsonParser } from 'qitos-ts/parsers';
import { budgets, compaction, doomLoop } from 'qitos-ts/policies';
import { createVariableEngine } from 'qitos-ts/prompts';
import { loadSkills, skillTool } from 'qitos-ts/skills';
import { MemoryEnv, ScriptedModel } from 'qitos-ts/testing';
import { builtinTools } from 'qitos-ts/tools';
import { diffTraces, readTrace, type Trace } from 'qitos-ts/trace';

export const model: Model = new ScriptedModel(['{"final_answer": "1"}']);
export const parser: Parser = jsonParser();
export const policies: Policy[] = [compaction(), doomLoop({ onDetect: 'warn' }), budgets({ maxSteps: 10 })];
export const envs: Env[] = [new MemoryEnv({ files: { 'a.txt': 'x' } }), new HostEnv({ root: '.' })];
export const echo: Tool = defineTool({
  id: 'echo',
  description: 'Echo',
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => text,
});
export const agent = new ReActAgent({ model, tools: [...builtinTools(), echo] });
export const engine = new Engine({ agent, policies });
export const later = {
  provider: () => createModel('openai:gpt-4o-mini'),
  suite: (): Promise<Suite> => loadSuite('bench'),
  mcp: () => McpManager.connect({ fs: { type: 'stdio', command: 'node', args: ['server.js'] } }),
  skills: async () => skillTool(await loadSkills(['skills'])),
  vars: () => createVariableEngine(),
  diff: (a: Trace, b: Trace) => diffTraces(a, b).same,
  trace: (dir: string) => readTrace(dir),
};
