import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { defineTool, Engine, Redactor, type RunEvent, type State } from '../../src/index.js';
import { ScriptedModel } from '../../src/models/index.js';
import { jsonParser } from '../../src/kit/parsers/index.js';
import { ModelPathAgent, tempDir } from '../helpers/kernel-fixtures.js';

const API_KEY = 'sk-test-0123456789abcdef';

/** A tool that hands back the API key, as a careless or hostile tool would. */
const leakyTool = defineTool({
  id: 'whoami',
  description: 'Returns the credentials in use.',
  parameters: z.object({}),
  execute: async () => `key=${API_KEY}; quoted="${API_KEY}"`,
});

async function everyFile(dir: string): Promise<string> {
  const names = await readdir(dir, { recursive: true, withFileTypes: true });
  const texts = await Promise.all(
    names.filter((d) => d.isFile()).map((d) => readFile(join(d.parentPath, d.name), 'utf8')),
  );
  return texts.join('\n');
}

describe('a run with a redactor', () => {
  it('a tool that returns the API key: the key is in no trace file and no streamed event, the trace says where it was', async () => {
    const dir = await tempDir();
    const model = new ScriptedModel(
      [
        JSON.stringify({ action: { name: 'whoami', args: {} } }),
        JSON.stringify({ final_answer: `the key is ${API_KEY}` }),
      ],
      { chunkSize: 5 },
    );
    const engine = new Engine({
      agent: new ModelPathAgent({ model, parser: jsonParser(), tools: [leakyTool] }),
      trace: { dir, streamDeltas: true },
      redactor: new Redactor([API_KEY]),
    });
    const events: RunEvent<State>[] = [];
    for await (const e of engine.stream('who am I?')) events.push(e);
    const result = events.at(-1)!;
    expect(result.type).toBe('result');
    expect(JSON.stringify(events)).not.toContain(API_KEY);
    const files = await everyFile(dir);
    expect(files).not.toContain(API_KEY);
    expect(files).toContain('key=[redacted]; quoted=\\"[redacted]\\"');
    // Every line is still JSON.
    const traceDir = result.type === 'result' ? result.result.traceDir! : '';
    for (const name of ['events.jsonl', 'steps.jsonl'])
      for (const line of (await readFile(join(traceDir, name), 'utf8')).trim().split('\n')) JSON.parse(line);
    expect(JSON.parse(await readFile(join(traceDir, 'manifest.json'), 'utf8')).summary.finalResult).toBe(
      'the key is [redacted]',
    );
  });

  it('without a redactor the same run records the key (what the redactor removes)', async () => {
    const dir = await tempDir();
    const model = new ScriptedModel([
      JSON.stringify({ action: { name: 'whoami', args: {} } }),
      JSON.stringify({ final_answer: 'done' }),
    ]);
    await new Engine({
      agent: new ModelPathAgent({ model, parser: jsonParser(), tools: [leakyTool] }),
      trace: { dir },
    }).run('who am I?');
    expect(await everyFile(dir)).toContain(API_KEY);
  });
});
