import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { z } from 'zod';
import { AgentModule, baseState, defineTool, type Decision, type State, type Task } from '../../src/index.js';

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

export const noopTool = defineTool({ id: 'noop', description: 'does nothing', parameters: z.object({}), execute: () => 'ok' });

/** An agent on the model path with a fixed max steps. */
export class ModelPathAgent extends AgentModule<State> {
  initState(task: Task): State {
    return baseState(task, (this.config.maxSteps as number) ?? 10);
  }
  override buildSystemPrompt(): string {
    return 'You are a test agent.';
  }
}

/** An agent that returns scripted decisions from `decide` (the model-free path). */
export class ScriptAgent extends AgentModule<State> {
  private i = 0;
  constructor(
    private readonly decisions: Array<Decision | (() => Decision)>,
    options: ConstructorParameters<typeof AgentModule>[0] = {},
  ) {
    super(options);
  }
  initState(task: Task): State {
    this.i = 0;
    return baseState(task, (this.config.maxSteps as number) ?? 50);
  }
  override decide(): Decision {
    const d = this.decisions[Math.min(this.i++, this.decisions.length - 1)];
    return typeof d === 'function' ? d() : structuredClone(d);
  }
}
