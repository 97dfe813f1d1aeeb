import { spawn, type ChildProcess } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { get } from 'node:http';
import { join, resolve } from 'node:path';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CALC_AGENT, CALC_SCRIPT, CONFIG_HOME, qitos, tempDir } from '../helpers/cli-harness.js';

const BIN = resolve(__dirname, '../../bin/qitos.js');

let dir: string;
let cleanup: () => Promise<void>;
const children: ChildProcess[] = [];
beforeEach(async () => ({ dir, cleanup } = await tempDir('qitos-serve-cli-')));
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  await cleanup();
});

/** Starts `qitos serve …` as a subprocess and resolves with its URL once it listens. */
async function serve(args: string[], env: Record<string, string> = {}): Promise<{ child: ChildProcess; url: string; out: () => string; exit: Promise<number | null> }> {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], { cwd: dir, env: { PATH: process.env.PATH ?? '', ...env } });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d));
  child.stderr!.on('data', (d: Buffer) => (out += d));
  const exit = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const url = await new Promise<string>((res, rej) => {
    const t = setInterval(() => {
      const m = /listening on (http:\/\/\S+).*\n.*\n/.exec(out);
      if (m) res(m[1]);
      else if (child.exitCode !== null) rej(new Error(`qitos serve exited: ${out}`));
    }, 20);
    exit.then(() => setTimeout(() => { clearInterval(t); rej(new Error(`qitos serve exited: ${out}`)); }, 50));
  });
  return { child, url, out: () => out, exit };
}

describe('qitos serve (subprocess)', () => {
  it('serves an agent module to the openai SDK, then stops on SIGTERM with its traces finalized and signed', async () => {
    const s = await serve(['--agent', CALC_AGENT, '--model', `scripted:${CALC_SCRIPT}`, '--port', '0', '--name', 'calc'], { XDG_CONFIG_HOME: CONFIG_HOME });
    expect(s.out()).toMatch(/agents: calc\n/);
    expect(s.out()).toMatch(/no token set: any local user can call this server \(it is bound to loopback 127\.0\.0\.1/);
    const reply = await new OpenAI({ baseURL: `${s.url}/v1`, apiKey: 'x', maxRetries: 0 }).chat.completions.create({ model: 'calc', messages: [{ role: 'user', content: 'What is 17 * 23?' }] });
    expect(reply.choices[0].message.content).toBe('391');
    expect((reply.choices[0].message as { reasoning_content?: string }).reasoning_content).toContain('17*23 is 391 per the tool.');
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
    const refused = await qitos(['serve', '--agent', 'react', '--model', `scripted:${CALC_SCRIPT}`, '--host', '0.0.0.0', '--port', '0'], dir);
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/token is required to listen on 0\.0\.0\.0.*QITOS_SERVE_TOKEN/);
    const s = await serve(['--agent', 'react', '--model', `scripted:${CALC_SCRIPT}`, '--port', '0', '--allowed-host', 'qitos.lan'], { QITOS_SERVE_TOKEN: 'tok' });
    expect(s.out()).toMatch(/a bearer token is required/);
    // --allowed-host adds a Host name; others are refused before the token is looked at
    const status = (host: string) => new Promise<number>((res, rej) => get(`${s.url}/v1/models`, { headers: { host, authorization: 'Bearer tok' } }, (r) => (r.resume(), res(r.statusCode!))).on('error', rej));
    expect(await status('qitos.lan:8080')).toBe(200);
    expect(await status('attacker.example')).toBe(403);
    expect((await fetch(`${s.url}/v1/models`)).status).toBe(401);
    const models = await (await fetch(`${s.url}/v1/models`, { headers: { authorization: 'Bearer tok' } })).json();
    expect(models.data.map((m: { id: string }) => m.id)).toEqual(['react']);
    s.child.kill('SIGTERM');
    expect(await s.exit).toBe(0);
  }, 60_000);
});
