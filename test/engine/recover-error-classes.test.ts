import { describe, expect, it } from 'vitest';
import { Engine, decide, type ErrorKind, type StopReason } from '../../src/index.js';
import { ScriptAgent } from '../helpers/kernel-fixtures.js';
import { ERROR_SAMPLES } from '../helpers/error-classes.js';

/**
 * How RECOVER ends a step that threw an error of each RECOVER kind (no policy, no hook): the recoverable kinds
 * are fed back and the run goes on to its final answer; the others end it.
 */
const OUTCOME: Record<ErrorKind, { stopReason: StopReason; recovered: boolean }> = {
  parse: { stopReason: 'final', recovered: true },
  model_transport: { stopReason: 'final', recovered: true },
  tool: { stopReason: 'final', recovered: true },
  env: { stopReason: 'final', recovered: true },
  model_request: { stopReason: 'unrecoverable_error', recovered: false },
  context_overflow: { stopReason: 'context_overflow', recovered: false },
  internal: { stopReason: 'unrecoverable_error', recovered: false },
  aborted: { stopReason: 'interrupted', recovered: false },
};

describe('RECOVER and every error class', () => {
  it.each(ERROR_SAMPLES.map((s) => [`${s.cls} (${s.kind})`, s] as const))(
    '%s thrown by decide, from this copy or a second one, ends the step as its RECOVER kind says',
    async (_, s) => {
      for (const copy of ['', '?second-copy']) {
        const mod = (await import(/* @vite-ignore */ `../../src/${s.src}${copy}`)) as Record<string, unknown>;
        const err = s.make(mod);
        const agent = new ScriptAgent([
          () => {
            throw err;
          },
          decide.final('done'),
        ]);
        const r = await new Engine({ agent, trace: false }).run('t');
        const want = OUTCOME[s.recover];
        expect(r.stopReason, copy).toBe(want.stopReason);
        // An aborted run records no failure: it was stopped, nothing failed.
        if (s.recover === 'aborted') {
          expect(r.failures).toEqual([]);
          continue;
        }
        const failure = r.failures[0]!;
        expect(failure).toMatchObject({ step: 1, kind: s.recover, message: s.message, fatal: !want.recovered });
        if (want.recovered) expect(r.state.metadata.lastError).toMatchObject({ kind: s.recover });
        // A kind RECOVER does not read is recorded as a bug: with its stack, as before it was a QitosError.
        expect(failure.stack !== undefined, 'stack').toBe(s.kind !== s.recover);
      }
    },
  );
});
