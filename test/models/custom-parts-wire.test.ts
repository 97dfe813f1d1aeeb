import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  baseState,
  customPart,
  definePartKind,
  newId,
  type CustomPartKinds,
  type State,
  type Task,
} from '../../src/core/index.js';
import { AgentModule } from '../../src/engine/agent-module.js';
import { Engine } from '../../src/engine/engine.js';
import { jsonParser } from '../../src/kit/parsers/index.js';
import { createModel } from '../../src/models/index.js';
import { ReplayModel, readTrace, stateAtStep } from '../../src/trace/index.js';
import { startFakeAnthropic, startFakeOpenAI, type FakeServer } from '../../src/kit/testing/fake-llm-servers.js';
import { tempDir } from '../helpers/kernel-fixtures.js';

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** Three user kinds: one renders text, one an image, one nothing. */
const kinds: CustomPartKinds = {
  weather: definePartKind({
    schema: z.object({ city: z.string(), tempC: z.number() }),
    render: (d) => `Weather in ${d.city}: ${d.tempC}°C`,
  }),
  chart: definePartKind({
    schema: z.object({ png: z.string().regex(/^[A-Za-z0-9+/=]+$/) }),
    render: (d, role) =>
      role === 'user' ? { type: 'file', mime: 'image/png', url: `data:image/png;base64,${d.png}` } : null,
  }),
  debug: definePartKind({ schema: z.object({ note: z.string() }), render: () => null }),
};

/** Starts from a user message holding the task and three custom parts. */
class Briefed extends AgentModule<State> {
  initState(task: Task): State {
    const s = baseState(task, 3);
    s.messages.push({
      role: 'user',
      info: { id: newId('msg'), role: 'user', time: { created: 1 } },
      parts: [
        { id: newId('prt'), type: 'text', text: task.objective },
        customPart(kinds, 'weather', { city: 'Oslo', tempC: 3 }),
        customPart(kinds, 'chart', { png: PNG }),
        customPart(kinds, 'debug', { note: 'internal, never sent' }),
      ],
    });
    return s;
  }
}

const final = JSON.stringify({ final_answer: 'Wear a coat.' });

describe('custom part kinds through the providers (seed 002 NFR-07)', () => {
  it('OpenAI wire: text as text, the image as image_url, the skipped kind absent; the trace and replay round-trip them', async () => {
    const srv = await startFakeOpenAI([{ text: final }]);
    servers.push(srv);
    const model = createModel('openai:gpt-4o-mini', { baseURL: srv.url, apiKey: 'k', env: {} });
    const dir = await tempDir();
    const r = await new Engine({
      agent: new Briefed({ model, parser: jsonParser() }),
      partKinds: kinds,
      trace: { dir },
    }).run('What should I wear?');
    expect([r.stopReason, r.finalResult]).toEqual(['final', 'Wear a coat.']);
    const user = srv.requests[0].body.messages.find((m: { role: string }) => m.role === 'user');
    expect(user.content).toEqual([
      { type: 'text', text: 'What should I wear?' },
      { type: 'text', text: 'Weather in Oslo: 3°C' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
    ]);
    expect(JSON.stringify(srv.requests[0].body)).not.toContain('internal, never sent');
    // the trace holds the parts as written; the state rebuilt from it has them, data and all
    const trace = await readTrace(r.traceDir!);
    const parts = stateAtStep(trace, trace.steps.at(-1)!.step).messages[0].parts;
    expect(parts.filter((p) => p.type === 'custom')).toEqual(
      r.state.messages[0].parts.filter((p) => p.type === 'custom'),
    );
    // a replay renders them the same way: the request hashes match the recording
    const replay = new ReplayModel(trace.steps, { id: 'replay', events: trace.events });
    const again = await new Engine({
      agent: new Briefed({ model: replay, parser: jsonParser() }),
      partKinds: kinds,
      trace: false,
    }).run('What should I wear?');
    expect(again.finalResult).toBe('Wear a coat.');
    expect(replay.drifts).toEqual([]);
  });

  it('Anthropic wire: text blocks and a base64 image block', async () => {
    const srv = await startFakeAnthropic([{ text: final }]);
    servers.push(srv);
    const model = createModel('anthropic:claude-haiku-4-5', { baseURL: srv.url, apiKey: 'k', env: {} });
    const r = await new Engine({
      agent: new Briefed({ model, parser: jsonParser() }),
      partKinds: kinds,
      trace: false,
    }).run('What should I wear?');
    expect(r.finalResult).toBe('Wear a coat.');
    const user = srv.requests[0].body.messages[0];
    expect(user.role).toBe('user');
    expect(user.content).toEqual([
      expect.objectContaining({ type: 'text', text: 'What should I wear?' }),
      expect.objectContaining({ type: 'text', text: 'Weather in Oslo: 3°C' }),
      expect.objectContaining({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }),
    ]);
    expect(JSON.stringify(srv.requests[0].body)).not.toContain('internal, never sent');
  });

  it('a kind the engine was not given stops the run with an error naming it', async () => {
    const srv = await startFakeOpenAI([{ text: final }]);
    servers.push(srv);
    const model = createModel('openai:gpt-4o-mini', { baseURL: srv.url, apiKey: 'k', env: {} });
    const r = await new Engine({
      agent: new Briefed({ model, parser: jsonParser() }),
      partKinds: { weather: kinds.weather, debug: kinds.debug },
      trace: false,
    }).run('What should I wear?');
    expect(r.stopReason).toBe('unrecoverable_error');
    expect(r.stopMessage).toContain(
      'custom part kind "chart" is not registered (EngineOptions.partKinds); registered: weather, debug',
    );
    expect(srv.requests).toHaveLength(0);
  });
});
