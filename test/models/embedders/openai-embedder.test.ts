import { cpSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ModelError } from '../../../src/index.js';
import { ToolRetrievalService } from '../../../src/kit/skills/index.js';
import { hashText, openAIEmbedder } from '../../../src/models/index.js';
import { startFakeEmbeddings, type FakeServer } from '../../../src/kit/testing/fake-llm-servers.js';
import { tempDir } from '../../helpers/kernel-fixtures.js';

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
async function serve(...args: Parameters<typeof startFakeEmbeddings>): Promise<FakeServer> {
  const s = await startFakeEmbeddings(...args);
  servers.push(s);
  return s;
}
const fast = { retry: { baseDelayMs: 1, random: () => 0 } };

describe('openAIEmbedder (real openai client, local server)', () => {
  it('posts the texts, in batches, and returns the vectors in input order whatever order the server uses', async () => {
    const srv = await serve((req) => {
      const input = req.body.input as string[];
      const vectors = input.map((t) => [t.length, 1]);
      return { vectors, order: vectors.map((_, i) => vectors.length - 1 - i) };
    });
    const e = openAIEmbedder({
      model: 'text-embedding-3-small',
      baseURL: srv.url,
      apiKey: 'sk-test',
      batchSize: 2,
      dimensions: 2,
    });
    expect(e.id).toBe(`openai-compatible:text-embedding-3-small@${srv.url}#2`);
    expect(await e.embed(['a', 'bb', 'ccc', 'dddd', 'eeeee'])).toEqual([
      [1, 1],
      [2, 1],
      [3, 1],
      [4, 1],
      [5, 1],
    ]);
    expect(srv.requests.map((r) => r.body.input)).toEqual([['a', 'bb'], ['ccc', 'dddd'], ['eeeee']]);
    expect(srv.requests[0].body).toMatchObject({
      model: 'text-embedding-3-small',
      encoding_format: 'float',
      dimensions: 2,
    });
    expect(srv.requests[0].headers.authorization).toBe('Bearer sk-test');
  });

  it('retries a server error, then succeeds', async () => {
    const srv = await serve([{ status: 503, body: { error: { message: 'overloaded' } } }, { vectors: [[1, 0]] }]);
    const e = openAIEmbedder({ model: 'm', baseURL: srv.url, apiKey: 'k', maxRetries: 2, ...fast });
    expect(await e.embed(['x'])).toEqual([[1, 0]]);
    expect(srv.requests).toHaveLength(2);
  });

  it('a refused key is a classified error naming the embedder; no retry', async () => {
    const srv = await serve([{ status: 401, body: { error: { message: 'bad key' } } }]);
    const e = openAIEmbedder({ model: 'm', baseURL: srv.url, apiKey: 'k', ...fast });
    const err = await e.embed(['x']).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(ModelError);
    expect((err as ModelError).modelKind).toBe('auth');
    expect((err as Error).message).toContain(`openai-compatible:m@${srv.url}`);
    expect(srv.requests).toHaveLength(1);
  });

  it('broken answers are errors, not vectors in an index', async () => {
    const srv = await serve([
      { vectors: [[1, 0]] },
      {
        vectors: [
          [1, 0],
          [1, 0, 0],
        ],
      },
    ]);
    const e = openAIEmbedder({ model: 'm', baseURL: srv.url, apiKey: 'k' });
    await expect(e.embed(['x', 'y'])).rejects.toThrow(`embedding model ${e.id} returned 1 vectors for 2 texts`);
    await expect(e.embed(['x', 'y'])).rejects.toThrow('returned a vector of length 3 for text 2; expected 2');
  });

  it('bad options fail at construction', () => {
    expect(() => openAIEmbedder({ model: 'm', baseURL: 'localhost:1234', apiKey: 'k' })).toThrow(
      /baseURL "localhost:1234" is not an http\(s\) URL/,
    );
    expect(() => openAIEmbedder({ model: 'm', baseURL: 'http://x/v1', apiKey: 'k', batchSize: 0 })).toThrow(
      'openAIEmbedder: batchSize must be a positive integer, got 0',
    );
  });

  it('drives skill retrieval: the index is built and queried through the endpoint', async () => {
    // The server embeds like a real model would: the same text always gets the same vector.
    const srv = await serve((req) => ({ vectors: (req.body.input as string[]).map((t) => hashText(t, 64)) }));
    const root = await tempDir();
    cpSync(resolve(__dirname, '../../fixtures/skills'), root, { recursive: true });
    rmSync(join(root, 'README.md'));
    const { service } = await ToolRetrievalService.open(root, {
      embedder: openAIEmbedder({ model: 'm', baseURL: srv.url, apiKey: 'k' }),
    });
    expect((await service.search('write an internal newsletter for the company', { top: 1 }))[0].name).toBe(
      'internal-comms',
    );
    expect(srv.requests.map((r) => r.body.input.length)).toEqual([3, 1]); // one batch for the index, one for the query
  });
});
