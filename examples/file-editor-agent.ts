/**
 * A file-editing agent: a ReActAgent with the built-in `read`, `edit`, `write` and `glob` tools.
 *
 *   npx tsx examples/file-editor-agent.ts          offline: ScriptedModel fixes a bug in an in-memory workspace
 *   QITOS_MODEL=deepseek:deepseek-chat QITOS_WORKSPACE=./my-project npx tsx examples/file-editor-agent.ts "Fix ..."
 *
 * Online, the agent works on the folder QITOS_WORKSPACE through a HostEnv (every path jailed inside it), or,
 * without it, on the same in-memory sample workspace. Edits use the ReAct parser: a multi-line argument in
 * triple quotes may hold lines such as `else:` without cutting the call.
 */
import { resolve } from 'node:path';
import type { Env, ModelRequest } from '../src/core/index.js';
import { Engine } from '../src/engine/engine.js';
import { HostEnv, MemoryEnv } from '../src/envs/index.js';
import { ReActAgent, type ReActAgentOptions } from '../src/kit/agents/index.js';
import { editTool, globTool, readTool, writeTool } from '../src/kit/tools/index.js';
import { ScriptedModel, createModel } from '../src/models/index.js';
import { runAsScript } from './run-as-script.js';

/** A ReActAgent that reads, edits and writes files in its env's workspace. */
export class FileEditorAgent extends ReActAgent {
  constructor(options: Omit<ReActAgentOptions, 'tools'> = {}) {
    super({
      maxSteps: 15,
      systemPrompt:
        'Read a file before you edit it, and copy the text to replace exactly from what you read (without the line numbers). ' +
        'After an edit, read the file again to check it. Finish with a one-line summary of the change.',
      ...options,
      tools: [readTool(), editTool(), writeTool(), globTool()],
    });
  }
}
export default FileEditorAgent;

/** The sample task and its workspace: non-members are charged 10% extra instead of the full price. */
export const SAMPLE_TASK = 'In pricing.py, non-members must pay the full price, not 10% more. Fix it.';
export function sampleWorkspace(): MemoryEnv {
  return new MemoryEnv({
    files: {
      'pricing.py':
        'def price(amount, member):\n    if member:\n        return amount * 0.9\n    else:\n        return amount * 1.1\n',
      'README.md': '# shop\n',
    },
  });
}

/** The text of the latest observation from `tool`, with read's line numbers stripped. */
function lastObservation(request: ModelRequest, tool: string): string {
  const prefix = `Observation from ${tool}: `;
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const m = request.messages[i];
    if (m.role !== 'user') continue;
    for (const p of m.content)
      if (p.type === 'text' && p.text.startsWith(prefix)) return p.text.slice(prefix.length).replace(/^ *\d+\t/gm, '');
  }
  throw new Error(`the scripted editor expected an observation from ${tool}`);
}

/**
 * A ScriptedModel that fixes the sample the way a model would: it reads the file, takes the `else:` branch
 * from what it read, edits it, reads again to check, and answers.
 */
export function scriptedFileEditorModel(): ScriptedModel {
  return new ScriptedModel(
    [
      'Thought: First I read the file.\nAction: read(path="pricing.py")',
      (req) => {
        const lines = lastObservation(req, 'read').split('\n');
        const at = lines.findIndex((l) => l.trim() === 'else:');
        if (at < 0 || !lines[at + 1]) throw new Error('the scripted editor found no else: branch in pricing.py');
        const oldBlock = `${lines[at]}\n${lines[at + 1]}`;
        const indent = /^\s*/.exec(lines[at + 1])![0];
        return (
          `Thought: The else branch adds 10%; non-members should pay the amount itself.\nAction: ` +
          `edit(path="pricing.py", oldString="""${oldBlock}""", ` +
          `newString="""${lines[at]}\n${indent}return amount""")`
        );
      },
      'Thought: Check the result.\nAction: read(path="pricing.py")',
      (req) => {
        const text = lastObservation(req, 'read');
        return /else:\n\s+return amount$/m.test(text)
          ? 'Thought: The else branch now returns the amount.\nFinal Answer: pricing.py: non-members ' +
              'now pay the full price (the else branch returns amount instead of amount * 1.1).'
          : 'Thought: The edit did not land as expected.\nFinal Answer: I could not fix pricing.py.';
      },
    ],
    { id: 'scripted:file-editor' },
  );
}

async function main(): Promise<void> {
  const spec = process.env.QITOS_MODEL;
  const model = spec ? createModel(spec) : scriptedFileEditorModel();
  const dir = spec ? process.env.QITOS_WORKSPACE : undefined;
  const env: Env = dir ? new HostEnv({ root: dir }) : sampleWorkspace();
  const task = spec ? process.argv.slice(2).join(' ') || SAMPLE_TASK : SAMPLE_TASK;
  const engine = new Engine({
    agent: new FileEditorAgent({ model }),
    env,
    handleSigint: true,
    trace: { agentSource: { module: 'examples/file-editor-agent.ts', export: 'FileEditorAgent' } },
    hooks: [
      (e) => {
        if (e.type === 'tool_state' && (e.state.status === 'completed' || e.state.status === 'error')) {
          console.log(
            `  step ${e.step}: ${e.tool} ${e.state.status === 'completed' ? 'ok' : `error: ${e.state.error}`}`,
          );
        }
      },
    ],
  });
  console.log(`Task: ${task}\nModel: ${model.id}\nWorkspace: ${dir ? resolve(dir) : 'in memory (sample)'}`);
  const r = await engine.run(task);
  console.log(`Answer: ${r.finalResult ?? '(none)'}  [${r.stopReason}: ${r.stopMessage}]`);
  if (env instanceof MemoryEnv) console.log(`pricing.py now:\n${env.snapshot()['pricing.py'] ?? '(missing)'}`);
  console.log(`Steps: ${r.steps}, tool calls: ${r.state.metrics.toolCalls}, trace: ${r.traceDir}`);
  if (r.stopReason !== 'final') process.exitCode = 1;
}

runAsScript(import.meta.url, main);
