import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { baseState, type StepRecord, type Task } from '../../src/index.js';
import { RunRecorder, readTrace, type RunDescription } from '../../src/trace/index.js';
import { tempDir } from '../helpers/kernel-fixtures.js';

const description: RunDescription = {
  agent: { name: 'a' },
  model: { id: 'm' },
  parser: null,
  tools: [],
  toolSpecs: [],
  policies: [],
  env: { name: 'null' },
  seed: null,
  budget: undefined,
  parent: null,
  systemPrompt: () => 'You add numbers.',
};

const hashes = { request: 'r', system: 's1', messages: 'm', tools: 't', params: 'p' };
const response = {
  parts: [{ type: 'text' as const, text: 'hi' }],
  usage: { input: 1, output: 1, reasoning: 0, cache: { read: 0, write: 0 } },
  cost: null,
  finishReason: 'stop' as const,
};

/** A step record frozen two levels deep: a recorder that wrote into it would throw (ES modules are strict). */
function frozenStep(step: number): Readonly<StepRecord> {
  const rec: StepRecord = {
    step,
    startedAt: 1,
    durationMs: 2,
    phases: { decide: 1 },
    observation: null,
    decision: { mode: 'wait' },
    results: [],
    stateDiff: {},
    model: { hashes, messageCount: 1, response, latencyMs: 3 },
  };
  Object.freeze(rec.model);
  return Object.freeze(rec);
}

describe('RunRecorder', () => {
  it(
    'reads a step record and writes a copy: the state diff and a changed system prompt go ' +
      'into the line, never into the record',
    async () => {
      const dir = join(await tempDir(), 'run');
      const recorder = new RunRecorder(dir, description);
      const task: Task = {
        id: 't',
        objective: 'add',
        inputs: {},
        resources: {},
        budget: {},
        successCriteria: [],
        metadata: {},
      };
      const state = baseState(task);
      recorder.start({ runId: 'r1', startedAt: 1, task, state });
      const first = frozenStep(1);
      recorder.step(first, { ...state, step: 1 }, 'You add numbers.');
      const second = frozenStep(2);
      recorder.step(second, { ...state, step: 2 }, 'You add numbers.');
      recorder.finish(
        { runId: 'r1', startedAt: 1, task, state },
        { reason: 'final', message: 'done' },
        {
          stopReason: 'final',
          message: 'done',
          finalResult: null,
          steps: 2,
          usage: { tokens: response.usage, cost: null, modelCalls: 2 },
          durationMs: 1,
          failures: [],
          policyEvents: {},
        },
      );
      // the records are as the engine left them
      expect(first.model).not.toHaveProperty('system');
      expect(first.stateDiff).toEqual({});
      const trace = await readTrace(dir);
      // the first line carries the system prompt (first seen), the second not (unchanged); both carry their diff
      expect(trace.steps.map((s) => s.model?.system)).toEqual(['You add numbers.', undefined]);
      expect(trace.steps[0].stateDiff).not.toEqual({});
      // and the line keeps the record's field order
      const line = JSON.parse(readFileSync(join(dir, 'steps.jsonl'), 'utf8').split('\n')[0]) as Record<string, unknown>;
      expect(Object.keys(line)).toEqual(Object.keys(first));
    },
  );
});
