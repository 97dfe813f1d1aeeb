import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { editManifest, qitos, recordCalcRun, tempDir } from '../helpers/cli-harness.js';
import { readTrace } from '../../src/trace/index.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir()));
afterEach(() => cleanup());

describe('state schema versions from the CLI', () => {
  it('a run records its agent state version; replay and fork refuse a trace of a newer version, naming both', async () => {
    const { traceDir } = await recordCalcRun(dir);
    expect((await readTrace(traceDir)).manifest.agent.stateVersion).toBe(1);
    // as if a newer version of the agent, with a renamed field, had written it
    await editManifest(traceDir, (m) => void (m.agent.stateVersion = 2));
    const replay = await qitos(['replay', traceDir], dir);
    expect(replay.code).not.toBe(0);
    expect(replay.err).toContain(`cannot replay ${traceDir}: the recorded state is version 2 of`);
    expect(replay.err).toContain("newer than this agent's version 1");
    const fork = await qitos(['fork', traceDir, '--at', '1'], dir);
    expect(fork.code).not.toBe(0);
    expect(fork.err).toContain(`cannot fork ${traceDir}: the recorded state is version 2 of`);
  });
});
