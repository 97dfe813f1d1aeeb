import { describe, expect, it } from 'vitest';
import {
  AgentModule,
  Engine,
  baseState,
  recordedStateVersion,
  type Decision,
  type State,
  type StateMigration,
  type Task,
} from '../../src/index.js';
import { readTrace, stateAtStep } from '../../src/trace/index.js';
import { tempDir } from '../helpers/kernel-fixtures.js';

type V1 = State & { count: number };
type V2 = State & { tally: number };

/** Version 1 counts in `count`; it answers once the count reaches 3. */
class CounterV1 extends AgentModule<V1> {
  initState(task: Task): V1 {
    return { ...baseState(task), count: 0 };
  }
  override decide(state: V1): Decision {
    return state.count >= 3 ? { mode: 'final', answer: `count ${state.count}` } : { mode: 'wait' };
  }
  override reduce(state: V1): V1 {
    return { ...state, count: state.count + 1 };
  }
}

/** Version 2 renamed the field to `tally`; the migration carries the old value over. */
class CounterV2 extends AgentModule<V2> {
  static override stateVersion = 2;
  static override stateMigrations: readonly StateMigration[] = [
    { from: 1, to: 2, migrate: ({ count, ...rest }) => ({ ...rest, tally: count }) },
  ];
  initState(task: Task): V2 {
    return { ...baseState(task), tally: 0 };
  }
  override decide(state: V2): Decision {
    if (typeof state.tally !== 'number') throw new Error(`tally is ${String(state.tally)}`);
    return state.tally >= 3 ? { mode: 'final', answer: `tally ${state.tally}` } : { mode: 'wait' };
  }
  override reduce(state: V2): V2 {
    return { ...state, tally: state.tally + 1 };
  }
}

async function v1Trace() {
  const dir = await tempDir();
  const r = await new Engine({ agent: new CounterV1({ name: 'Counter' }), trace: { dir } }).run('count');
  expect(r.finalResult).toBe('count 3');
  return readTrace(r.traceDir!);
}

describe('state schema versions and migrations', () => {
  it('the manifest records the state version (1 by default, the class static otherwise)', async () => {
    const t = await v1Trace();
    expect(t.manifest.agent.stateVersion).toBe(1);
    expect(new CounterV2().stateVersion).toBe(2);
    expect(new CounterV2({ stateVersion: 3, stateMigrations: [] }).stateVersion).toBe(3);
    expect(() => new CounterV2({ stateVersion: 0 })).toThrow('stateVersion must be a positive integer, got 0');
  });

  it('a v2 agent resumes (forks) a v1 trace through its migration: the renamed field carries the value', async () => {
    const t = await v1Trace();
    const dir = await tempDir();
    const r = await new Engine({ agent: new CounterV2({ name: 'Counter' }), trace: { dir } }).run('count', {
      resumeFrom: { state: stateAtStep(t, 1) as V2, step: 1, stateVersion: recordedStateVersion(t.manifest) },
    });
    expect(r.stopReason).toBe('final');
    expect(r.finalResult).toBe('tally 3'); // 1 carried over, then 2 more steps
    expect(r.state.tally).toBe(4); // the last step's reduce counts too
    expect('count' in r.state).toBe(false);
    expect((await readTrace(r.traceDir!)).manifest.agent.stateVersion).toBe(2);
  });

  it('without a migration the run ends with an error naming both versions, and leaves a trace', async () => {
    const t = await v1Trace();
    const r = await new Engine({
      agent: new CounterV2({ name: 'Counter', stateMigrations: [] }),
      trace: { dir: await tempDir() },
    }).run('count', { resumeFrom: { state: stateAtStep(t, 1) as V2, step: 1, stateVersion: 1 } });
    expect(r.stopReason).toBe('unrecoverable_error');
    expect(r.stopMessage).toContain(
      "the recorded state is version 1 of Counter's state schema and this agent reads version " +
        '2, but no migration starts at version 1 (registered: none)',
    );
    const manifest = (await readTrace(r.traceDir!)).manifest;
    expect(manifest.summary?.stopReason).toBe('unrecoverable_error');
  });
});
