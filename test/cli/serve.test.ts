import type { ChildProcess } from 'node:child_process';
import { readdir, writeFile } from 'node:fs/promises';
import { get } from 'node:http';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CALC_AGENT,
  CALC_SCRIPT,
  CONFIG_HOME,
  FIXTURES,
  qitos,
  serveProcess,
  tempDir,
  type ServeProcess,
} from '../helpers/cli-harness.js';
import { startFakeOpenAI } from '../../src/kit/testing/fake-llm-servers.js';

let dir: string;
let cleanup: () => Promise<void>;
const children: ChildProcess[] = [];
beforeEach(async () => ({ dir, cleanup } = await tempDir('qitos-serve-cli-')));
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  await cleanup();
});

/** `qitos serve …` in this test's folder, killed after the test. */
async function serve(args: string[], env: Record<string, string> = {}): Promise<ServeProcess> {
  const s = await serveProcess(args, dir, env);
  children.push(s.child);
  return s;
}

describe('qitos serve (subprocess)', () => {
  it('serves an agent module to the openai SDK, then stops on SIGTERM with its traces finalized and signed', async () => {
    const s = await serve(
      ['--agent', CALC_AGENT, '--model', `scripted:${CALC_SCRIPT}`, '--port', '0', '--name', 'calc'],
      { XDG_CONFIG_HOME: CONFIG_HOME },
    );
    expect(s.out()).toMatch(/agents: calc\n/);
    expect(s.out()).toMatch(/no token set: any local user can call this server \(it is bound to loopback 127\.0\.0\.1/);
    const reply = await new OpenAI({ baseURL: `${s.url}/v1`, apiKey: 'x', maxRetries: 0 }).chat.completions.create({
      model: 'calc',
      messages: [{ role: 'user', content: 'What is 17 * 23?' }],
    });
    expect(reply.choices[0].message.content).toBe('391');
    const reasoning = (reply.choices[0].message as { reasoning_content?: string }).reasoning_content!;
    expect(reasoning).toMatch(/\[tool call\] calc\(\{"expr":"17 \* 23"\}\)\n\[tool result\] calc: 391\n/);
    // The model's own reasoning stays; the final step's reply (the answer) does not come twice.
    expect(reasoning).toContain('17*23 is 391 per the tool.');
    expect(reasoning).not.toContain('final_answer');
    s.child.kill('SIGTERM');
    expect(await s.exit).toBe(0);
    expect(s.out()).toMatch(/SIGTERM: finishing 0 run\(s\)[\s\S]*stopped; traces flushed/);
    const runs = await readdir(join(dir, 'traces'));
    expect(runs).toHaveLength(1);
    // The server's run is this machine's: it replays with no flag naming the agent or the model.
    const replay = await qitos(['replay', join(dir, 'traces', runs[0]!)], dir);
    expect(replay.err).not.toMatch(/not signed|--trust-trace/);
    expect(replay.code).toBe(0);
  }, 60_000);

  it('requires QITOS_SERVE_TOKEN off loopback, and then demands it from clients', async () => {
    const refused = await qitos(
      ['serve', '--agent', 'react', '--model', `scripted:${CALC_SCRIPT}`, '--host', '0.0.0.0', '--port', '0'],
      dir,
    );
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/token is required to listen on 0\.0\.0\.0.*QITOS_SERVE_TOKEN/);
    const s = await serve(
      ['--agent', 'react', '--model', `scripted:${CALC_SCRIPT}`, '--port', '0', '--allowed-host', 'qitos.lan'],
      { QITOS_SERVE_TOKEN: 'tok' },
    );
    expect(s.out()).toMatch(/a bearer token is required/);
    // --allowed-host adds a Host name; others are refused before the token is looked at
    const status = (host: string) =>
      new Promise<number>((res, rej) =>
        get(
          `${s.url}/v1/models`,
          { headers: { host, authorization: 'Bearer tok' } },
          (r) => (r.resume(), res(r.statusCode!)),
        ).on('error', rej),
      );
    expect(await status('qitos.lan:8080')).toBe(200);
    expect(await status('attacker.example')).toBe(403);
    expect((await fetch(`${s.url}/v1/models`)).status).toBe(401);
    const models = await (await fetch(`${s.url}/v1/models`, { headers: { authorization: 'Bearer tok' } })).json();
    expect(models.data.map((m: { id: string }) => m.id)).toEqual(['react']);
    s.child.kill('SIGTERM');
    expect(await s.exit).toBe(0);
  }, 60_000);
});

describe('qitos serve: which model', () => {
  it('an agent that decides in code is served without --model; one that takes the model path is refused at start', async () => {
    const s = await serve(['--agent', join(FIXTURES, 'agents/echo-agent.ts'), '--port', '0', '--name', 'echo'], {
      XDG_CONFIG_HOME: CONFIG_HOME,
    });
    const reply = await new OpenAI({ baseURL: `${s.url}/v1`, apiKey: 'x', maxRetries: 0 }).chat.completions.create({
      model: 'echo',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(reply.choices[0].message.content).toBe('echo: hi');
    s.child.kill('SIGTERM');
    expect(await s.exit).toBe(0);
    const refused = await qitos(['serve', '--agent', CALC_AGENT, '--port', '0'], dir);
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/takes the model path \(it does not override decide\) but has no model: give --model/);
  }, 60_000);

  it("--serve-model of the config's provider keeps its options (base URL, apiKeyEnv), as --model does", async () => {
    const fake = await startFakeOpenAI([{ text: '{"final_answer": "391"}' }]);
    try {
      await writeFile(
        join(dir, 'qitos.yaml'),
        `model:\n  id: openai-compatible:main\n  options:\n    baseURL: ${fake.url}\n    apiKeyEnv: MY_KEY\n`,
      );
      const s = await serve(
        [
          '--agent',
          CALC_AGENT,
          '-c',
          'qitos.yaml',
          '--serve-model',
          'openai-compatible:other',
          '--port',
          '0',
          '--name',
          'calc',
        ],
        { XDG_CONFIG_HOME: CONFIG_HOME, MY_KEY: 'sk-mine' },
      );
      const reply = await new OpenAI({ baseURL: `${s.url}/v1`, apiKey: 'x', maxRetries: 0 }).chat.completions.create({
        model: 'calc@openai-compatible:other',
        messages: [{ role: 'user', content: 'What is 17 * 23?' }],
      });
      expect(reply.choices[0].message.content).toBe('391');
      expect(fake.requests).toHaveLength(1);
      expect(fake.requests[0]!.body.model).toBe('other');
      expect(fake.requests[0]!.headers.authorization).toBe('Bearer sk-mine');
      s.child.kill('SIGTERM');
      expect(await s.exit).toBe(0);
    } finally {
      await fake.close();
    }
  }, 60_000);
});
