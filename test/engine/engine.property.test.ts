import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Engine, ModelError, StopReason, applyStateDiff } from '../../src/index.js';
import { ScriptedModel, type ScriptReply } from '../../src/models/index.js';
import { jsonParser } from '../../src/kit/parsers/index.js';
import { readTrace } from '../../src/trace/index.js';
import { ModelPathAgent, addTool, noopTool, tempDir } from '../helpers/kernel-fixtures.js';

/** Random model replies: tool calls (valid and invalid), waits, finals, garbage, transport and request errors. */
const reply: fc.Arbitrary<ScriptReply> = fc.oneof(
  fc
    .record({ a: fc.integer(), b: fc.integer() })
    .map(({ a, b }) => `{"action":{"name":"add","args":{"a":${a},"b":${b}}}}`),
  fc.constant('{"action":{"name":"add","args":{"a":"x"}}}'),
  fc.constant('{"actions":[{"name":"noop","args":{}},{"name":"missing","args":{}}]}'),
  fc.constant('{"wait":true}'),
  fc.string({ maxLength: 12 }).map((s) => JSON.stringify({ final_answer: s })),
  fc.string({ maxLength: 20 }),
  fc.constant({ error: new ModelError('server', 'HTTP 502') }),
  fc.constant({ error: new ModelError('bad_request', 'HTTP 400') }),
);

describe('Engine properties', () => {
  it('any sequence of scripted replies ends with exactly one stop reason and a consistent trace', async () => {
    const root = await tempDir();
    await fc.assert(
      fc.asyncProperty(
        fc.array(reply, { minLength: 0, maxLength: 12 }),
        fc.integer({ min: 1, max: 8 }),
        async (script, maxSteps) => {
          const model = new ScriptedModel(script);
          const agent = new ModelPathAgent({
            model,
            parser: jsonParser(),
            tools: [addTool, noopTool],
            config: { maxSteps },
          });
          const r = await new Engine({ agent, trace: { dir: root }, maxRecoveries: 2 }).run('prop');
          expect(StopReason.options).toContain(r.stopReason);
          expect(r.state.stopReason).toBe(r.stopReason);
          const t = await readTrace(r.traceDir!);
          const lines = (await readFile(join(r.traceDir!, 'steps.jsonl'), 'utf8')).split('\n').filter(Boolean);
          expect(t.manifest.summary?.steps).toBe(lines.length);
          expect(r.steps).toBe(lines.length);
          expect(lines.length).toBeLessThanOrEqual(maxSteps);
          // exactly one step (the last) carries the stop verdict, and it matches the manifest
          const stops = t.steps.filter((s) => s.stop);
          if (t.steps.length) {
            expect(stops).toHaveLength(1);
            expect(stops[0].step).toBe(t.steps.length);
            expect(stops[0].stop?.reason).toBe(r.stopReason);
          }
          expect(t.manifest.summary?.stopReason).toBe(r.stopReason);
          expect(t.manifest.status).not.toBe('running');
          let s = t.manifest.initialState as Record<string, unknown>;
          for (const st of t.steps) s = applyStateDiff(s, st.stateDiff);
          expect(s).toEqual(JSON.parse(JSON.stringify(r.state)));
        },
      ),
      { numRuns: 60 },
    );
  });
});
