import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { beforeAll, describe, expect, it } from 'vitest';
import { serversClosedAfterEach, type TestServer } from './serve-fixtures.js';

const server = serversClosedAfterEach();
const SCHEMAS = resolve(__dirname, '../fixtures/openai-openapi/chat-completion.schemas.json');

/**
 * The spec writes OpenAPI 3.0's `nullable: true` (next to a `type` or a `$ref`); JSON Schema says it as "this, or
 * null". Everything else of the fixture is used as it is.
 */
function jsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(jsonSchema);
  if (node === null || typeof node !== 'object') return node;
  const { nullable, ...rest } = node as Record<string, unknown>;
  const out = Object.fromEntries(
    Object.entries(rest).map(([k, v]) => [k, k === 'example' || k === 'description' ? v : jsonSchema(v)]),
  );
  return nullable === true ? { anyOf: [out, { type: 'null' }] } : out;
}

let completion: ValidateFunction;
let chunk: ValidateFunction;
beforeAll(async () => {
  const doc = jsonSchema(JSON.parse(await readFile(SCHEMAS, 'utf8'))) as Record<string, unknown>;
  // unknown keywords (x-stainless-const) are annotations; `unixtime` and `uri` are formats ajv does not ship
  const ajv = new Ajv({ strict: false, allErrors: true, formats: { unixtime: true, uri: true } });
  ajv.addSchema({ ...doc, $id: 'https://openai.test/openapi.json' });
  completion = ajv.getSchema('https://openai.test/openapi.json#/components/schemas/CreateChatCompletionResponse')!;
  chunk = ajv.getSchema('https://openai.test/openapi.json#/components/schemas/CreateChatCompletionStreamResponse')!;
});

/** Fails with ajv's errors (and the value) when `value` does not match. */
function expectValid(validate: ValidateFunction, value: unknown): void {
  const ok = validate(value);
  expect(ok ? [] : { errors: validate.errors, value }).toEqual([]);
}

const post = (s: TestServer, body: object) =>
  fetch(`${s.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe("our answers match OpenAI's OpenAPI spec (openai/openai-openapi, the schemas in test/fixtures/openai-openapi)", () => {
  it('a chat.completion is a CreateChatCompletionResponse', async () => {
    const s = await server();
    for (const model of ['echo', 'adder']) {
      const res = await post(s, { model, messages: [{ role: 'user', content: 'add 2 and 3' }] });
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body).not.toHaveProperty('system_fingerprint'); // the spec types it as a string: we have none to send
      expectValid(completion, body);
    }
  });

  it.each([
    ['without usage', {}],
    ['with include_usage (usage null until the last chunk)', { stream_options: { include_usage: true } }],
  ])('every chunk of a stream %s is a CreateChatCompletionStreamResponse', async (_what, extra) => {
    const s = await server();
    const res = await post(s, {
      model: 'adder',
      stream: true,
      messages: [{ role: 'user', content: 'add 2 and 3' }],
      ...extra,
    });
    const frames = (await res.text()).split('\n\n').filter(Boolean);
    expect(frames.at(-1)).toBe('data: [DONE]');
    const chunks = frames.slice(0, -1).map((f) => JSON.parse(f.slice('data: '.length)) as Record<string, unknown>);
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks) expectValid(chunk, c);
  });

  it('the validator is strict where the spec is: a null system_fingerprint or an unknown finish_reason is refused', async () => {
    const base = {
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'm',
      choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }],
    };
    expectValid(chunk, base);
    expect(chunk({ ...base, system_fingerprint: null })).toBe(false);
    expect(chunk({ ...base, choices: [{ ...base.choices[0], finish_reason: 'error' }] })).toBe(false);
  });
});
