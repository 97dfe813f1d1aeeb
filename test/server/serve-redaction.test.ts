import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Redactor, type State } from '../../src/core/index.js';
import { Engine } from '../../src/engine/engine.js';
import { ReActAgent } from '../../src/kit/agents/index.js';
import { ScriptedModel } from '../../src/models/index.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { tempDir } from '../helpers/kernel-fixtures.js';
import { echo, serversClosedAfterEach } from './serve-fixtures.js';

const server = serversClosedAfterEach();
const started: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.close({ graceMs: 0 })));
});
const TOKEN = 'serve-token-9c1e77d0b2';

describe("the server's answers hold no secret", () => {
  it("the serve token in an error message, in a run's answer and in its events comes back redacted", async () => {
    // As `qitos serve` sets it up: one redactor for the answers and for the engine's trace and stream.
    const redactor = new Redactor([TOKEN]);
    const traceDir = join(await tempDir('qitos-serve-'), 'traces');
    const model = new ScriptedModel([echo], { loop: true, chunkSize: 4 }); // the token reaches the stream 4 characters at a time
    const engine = new Engine<State>({
      agent: new ReActAgent({ model, tools: [] }),
      trace: { dir: traceDir },
      redactor,
    });
    const s = await startServer({ agents: [{ id: 'echo', engine }], traceDir, port: 0, token: TOKEN, redactor });
    started.push(s);
    const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
    const post = (body: object) =>
      fetch(`${s.url}/v1/chat/completions`, { method: 'POST', headers: auth, body: JSON.stringify(body) });
    // An error message that quotes the request: the model id is the token.
    const missing = await post({ model: TOKEN, messages: [{ role: 'user', content: 'hi' }] });
    expect(missing.status).toBe(404);
    const error = await missing.text();
    expect(JSON.parse(error).error.message).toBe('The model "[redacted]" does not exist: this server offers "echo"');
    // A run whose answer echoes it, streamed and not.
    const plain = await post({ model: 'echo', messages: [{ role: 'user', content: `my token is ${TOKEN}` }] });
    const runId = plain.headers.get('x-qitos-run-id')!;
    expect((await plain.json()).choices[0].message.content).toBe('echo: my token is [redacted]');
    const streamed = await (
      await post({ model: 'echo', stream: true, messages: [{ role: 'user', content: `again ${TOKEN}` }] })
    ).text();
    expect(streamed).toContain('data: ');
    expect(streamed).not.toContain(TOKEN);
    const events = await (await fetch(`${s.url}/v1/runs/${runId}/events`, { headers: auth })).text();
    expect(events).toContain('[redacted]');
    expect(events + error).not.toContain(TOKEN);
  });

  it('without a redactor the same error quotes the token (what the redactor removes)', async () => {
    const s = await server({ token: TOKEN });
    const res = await fetch(`${s.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: TOKEN, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(await res.text()).toContain(TOKEN);
  });
});
