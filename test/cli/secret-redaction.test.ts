import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CALC_AGENT, qitos, tempDir } from '../helpers/cli-harness.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir()));
afterEach(() => cleanup());

/** Every file under a folder, as one text. */
async function everyFile(root: string): Promise<string> {
  const names = await readdir(root, { recursive: true, withFileTypes: true });
  const texts = await Promise.all(
    names.filter((d) => d.isFile()).map((d) => readFile(join(d.parentPath, d.name), 'utf8')),
  );
  return texts.join('\n');
}

describe('secrets stay out of every record of a CLI run', () => {
  it(
    'an MCP server (a real stdio one) that prints an expanded ${VAR} to its stderr: not in ' +
      'events.jsonl, the trace or the log lines',
    async () => {
      const secret = 'mcp-var-value-7f3a9c2e';
      // A stdio "server" that echoes what its config handed it to stderr, the way a crashing server prints its settings.
      await writeFile(
        join(dir, 'leaky-server.mjs'),
        `console.error('connecting with token ' + process.argv[2] + ' and ' + process.env.UPSTREAM); process.exit(1);\n`,
      );
      await writeFile(
        join(dir, 'q.yaml'),
        stringify({
          mcp: {
            leaky: {
              type: 'stdio',
              command: process.execPath,
              args: [join(dir, 'leaky-server.mjs'), '${LEAKY_VALUE}'],
              env: { UPSTREAM: 'x-${LEAKY_VALUE}' },
            },
          },
        }),
      );
      await writeFile(join(dir, 'replies.json'), JSON.stringify([{ text: JSON.stringify({ final_answer: 'done' }) }]));
      const r = await qitos(
        ['run', CALC_AGENT, '-t', 'x', '-m', `scripted:${join(dir, 'replies.json')}`, '-c', 'q.yaml'],
        dir,
        { LEAKY_VALUE: secret },
      );
      expect(r.err).toContain('mcp: server "leaky" is not available');
      const traces = await everyFile(join(dir, 'traces'));
      expect(traces).toContain('connecting with token [redacted] and x-[redacted]');
      expect(traces + r.out + r.err).not.toContain(secret);
    },
  );

  it('a model that writes the API key back: not in the step lines, the end of the run, the --json summary or the trace', async () => {
    const key = 'sk-qitos-test-5d1c0b7a99';
    await writeFile(
      join(dir, 'replies.json'),
      JSON.stringify([{ text: JSON.stringify({ final_answer: `my key is ${key}` }) }]),
    );
    const env = { OPENAI_API_KEY: key };
    const r = await qitos(['run', CALC_AGENT, '-t', 'x', '-m', `scripted:${join(dir, 'replies.json')}`], dir, env);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^final: +my key is \[redacted\]$/m);
    const json = await qitos(
      ['run', CALC_AGENT, '-t', 'x', '-m', `scripted:${join(dir, 'replies.json')}`, '--json'],
      dir,
      env,
    );
    expect(JSON.parse(json.out).finalResult).toBe('my key is [redacted]');
    expect(r.out + r.err + json.out + json.err + (await everyFile(join(dir, 'traces')))).not.toContain(key);
  });
});
