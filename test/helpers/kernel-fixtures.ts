import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { z } from 'zod';
import { AgentModule, baseState, defineTool, type State, type Task } from '../../src/index.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

/** A fresh temp folder removed after the test. */
export async function tempDir(prefix = 'qitos-test-'): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}

export const addTool = defineTool({
  id: 'add',
  description: 'Add two numbers',
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => String(a + b),
});

export const noopTool = defineTool({
  id: 'noop',
  description: 'does nothing',
  parameters: z.object({}),
  execute: () => 'ok',
});

/** An agent on the model path with a fixed max steps. */
export class ModelPathAgent extends AgentModule<State> {
  initState(task: Task): State {
    return baseState(task, (this.config.maxSteps as number) ?? 10);
  }
  override buildSystemPrompt(): string {
    return 'You are a test agent.';
  }
}

// The model-free agent is a user-facing stand-in: qitos-ts/testing (src/kit/testing/scripted-agent.ts).
export { ScriptedAgent as ScriptAgent } from '../../src/kit/testing/scripted-agent.js';
