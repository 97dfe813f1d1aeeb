/** Small agents, suites and temp folders shared by the bench tests. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentModule, type AgentModuleOptions } from '../../src/engine/agent-module.js';
import { baseState, decide, type Decision, type State, type Task } from '../../src/core/index.js';
import { jsonParser } from '../../src/kit/parsers/json-parser.js';
import type { BenchTaskInput } from '../../src/bench/bench-task.js';

/** Answers `task.inputs.answer` after `inputs.delayMs` (abortable only between steps, as agents are). */
export class OracleAgent extends AgentModule<State> {
  initState(task: Task): State {
    const s = baseState(task, 5);
    s.metadata.inputs = task.inputs;
    return s;
  }
  override async decide(state: State): Promise<Decision> {
    const inputs = state.metadata.inputs as { answer?: string; delayMs?: number };
    if (inputs.delayMs) await new Promise((r) => setTimeout(r, inputs.delayMs));
    return decide.final(String(inputs.answer ?? ''));
  }
}

/** Takes the model path with the JSON parser (for runs driven by a model). */
export class ModelAgent extends AgentModule<State> {
  constructor(options: AgentModuleOptions = {}) {
    super({ parser: jsonParser(), ...options });
  }
  initState(task: Task): State {
    return baseState(task, 4);
  }
}

/** `n` tasks whose oracle answer is right for even indexes and wrong for odd ones. */
export function numberTasks(n: number, extra: Partial<BenchTaskInput['inputs']> = {}): BenchTaskInput[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `t${String(i).padStart(3, '0')}`,
    objective: `What is ${i} + 1?`,
    inputs: { answer: String(i % 2 === 0 ? i + 1 : i), ...extra },
    expected: String(i + 1),
  }));
}

/** A temp folder removed by the returned function. */
export function tempDir(prefix = 'qitos-bench-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Makes temp folders on demand (`make`) and removes them all in `cleanup` (register it with afterEach). */
export function tempDirs(prefix?: string): { make: () => string; cleanup: () => void } {
  const made: Array<() => void> = [];
  return {
    make: () => {
      const t = tempDir(prefix);
      made.push(t.cleanup);
      return t.dir;
    },
    cleanup: () => {
      while (made.length) made.pop()!();
    },
  };
}
