import { afterEach, describe, expect, it } from 'vitest';
import {
  AnthropicModel,
  ModelConfigError,
  OpenAICompatibleModel,
  createModel,
  modelFromConfig,
  providerPresets,
} from '../../src/models/index.js';
import { startFakeAnthropic, startFakeOpenAI, type FakeServer } from '../../src/kit/testing/fake-llm-servers.js';

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
const hi = { messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'hi' }] }] };

describe('createModel', () => {
  it.each([
    ['openai:gpt-4o-mini', 'OPENAI_API_KEY'],
    ['deepseek:deepseek-chat', 'DEEPSEEK_API_KEY'],
    ['zhipu:glm-4.6', 'ZHIPU_API_KEY'],
    ['qwen:qwen-plus', 'DASHSCOPE_API_KEY'],
    ['anthropic:claude-sonnet-4-5', 'ANTHROPIC_API_KEY'],
  ])('a missing key for %s names %s', (spec, variable) => {
    expect(() => createModel(spec, { env: {} })).toThrow(ModelConfigError);
    expect(() => createModel(spec, { env: {} })).toThrow(new RegExp(`set the environment variable ${variable}`));
  });

  it('an unknown provider lists the known ones', () => {
    expect(() => createModel('mystery:model', { env: {} })).toThrow(
      /unknown model provider "mystery".*openai, deepseek, zhipu, qwen, ollama, vllm, lmstudio/,
    );
    expect(() => createModel('gpt-4o', { env: {} })).toThrow(/write "provider:model"/);
  });

  it('local servers need no key; the model id keeps everything after the first colon', () => {
    const m = createModel('ollama:qwen2.5:7b', { env: {} });
    expect(m).toBeInstanceOf(OpenAICompatibleModel);
    expect(m.id).toBe('ollama:qwen2.5:7b');
    expect(m.info).toEqual({ provider: 'ollama', model: 'qwen2.5:7b', endpoint: 'http://localhost:11434/v1' });
  });

  it('fills context window and output limit from the preset, unless overridden', () => {
    expect(createModel('deepseek:deepseek-chat', { env: { DEEPSEEK_API_KEY: 'k' } }).info).toMatchObject({
      contextWindow: 128_000,
      maxOutputTokens: 8_192,
    });
    expect(createModel('anthropic:claude-sonnet-4-5-20250929', { env: { ANTHROPIC_API_KEY: 'k' } }).info).toMatchObject(
      { contextWindow: 200_000, maxOutputTokens: 64_000 },
    );
    expect(createModel('vllm:llama', { env: {}, contextWindow: 32_768 }).info?.contextWindow).toBe(32_768);
  });

  it('reads base URL and key from the environment (OPENAI_BASE_URL, OPENAI_API_KEY)', async () => {
    const srv = await startFakeOpenAI([{ text: 'from env' }]);
    servers.push(srv);
    const m = createModel('openai:gpt-4o-mini', { env: { OPENAI_BASE_URL: srv.url, OPENAI_API_KEY: 'sk-env' } });
    expect((await m.generate(hi)).parts).toEqual([{ type: 'text', text: 'from env' }]);
    expect(srv.requests[0].headers.authorization).toBe('Bearer sk-env');
  });

  it('reads ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY', async () => {
    const srv = await startFakeAnthropic([{ text: 'claude from env' }]);
    servers.push(srv);
    const m = createModel('anthropic:claude-haiku-4-5', {
      env: { ANTHROPIC_BASE_URL: srv.url, ANTHROPIC_API_KEY: 'sk-ant-env' },
    });
    expect(m).toBeInstanceOf(AnthropicModel);
    expect((await m.generate(hi)).parts).toEqual([{ type: 'text', text: 'claude from env' }]);
  });

  it('openai-compatible needs a base URL and says which variable sets it', () => {
    expect(() => createModel('openai-compatible:my-model', { env: {} })).toThrow(
      /set OPENAI_COMPATIBLE_BASE_URL or pass baseURL/,
    );
    expect(
      createModel('openai-compatible:my-model', { env: { OPENAI_COMPATIBLE_BASE_URL: 'http://127.0.0.1:9/v1' } }).id,
    ).toBe('openai-compatible:my-model');
  });

  it('a base URL that is not an http(s) URL fails at once, naming where it came from', () => {
    expect(() => createModel('ollama:qwen2.5', { env: { OLLAMA_BASE_URL: 'localhost:11434/v1' } })).toThrow(
      ModelConfigError,
    );
    expect(() => createModel('ollama:qwen2.5', { env: { OLLAMA_BASE_URL: 'localhost:11434/v1' } })).toThrow(
      /from the environment variable OLLAMA_BASE_URL, "localhost:11434\/v1" is not an http\(s\) URL/,
    );
    expect(() => createModel('vllm:llama', { env: {}, baseURL: 'not a url' })).toThrow(
      /from the baseURL option, "not a url" is not a URL/,
    );
    expect(() => new AnthropicModel({ model: 'claude-x', apiKey: 'k', baseURL: 'ftp://host' })).toThrow(
      /baseURL "ftp:\/\/host" is not an http\(s\) URL/,
    );
  });

  it('a base URL with credentials or a query fails at once, and the error does not echo the credentials', () => {
    const creds = () => createModel('vllm:llama', { env: {}, baseURL: 'http://me:hunter22@127.0.0.1:8000/v1' });
    expect(creds).toThrow(/holds a user name or password .*pass the key as apiKey/);
    expect(creds).not.toThrow(/hunter22/);
    expect(() => createModel('vllm:llama', { env: {}, baseURL: 'http://127.0.0.1:8000/v1?key=abc' })).toThrow(
      /has a query/,
    );
  });

  it('records the endpoint its requests go to', () => {
    expect(createModel('vllm:llama', { env: {}, baseURL: 'http://127.0.0.1:8000/v1/' }).info?.endpoint).toBe(
      'http://127.0.0.1:8000/v1',
    );
    expect(
      createModel('openai:gpt-4o', { env: { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: 'http://10.0.0.1:9/v1' } }).info
        ?.endpoint,
    ).toBe('http://10.0.0.1:9/v1');
    expect(new AnthropicModel({ model: 'claude-x', apiKey: 'k' }).info?.endpoint).toBe('https://api.anthropic.com');
  });

  it('an apiKeyEnv naming an unset variable is an error before any request, also where a key is optional', () => {
    expect(() => createModel('ollama:qwen2.5', { env: {}, apiKeyEnv: 'MY_OLLAMA_KEY' })).toThrow(
      /apiKeyEnv names the environment variable MY_OLLAMA_KEY, which is not set/,
    );
    expect(() => createModel('vllm:llama', { env: { MY_KEY: '' }, apiKeyEnv: 'MY_KEY' })).toThrow(
      /MY_KEY, which is not set \(or empty\)/,
    );
    expect(createModel('vllm:llama', { env: { MY_KEY: 'k' }, apiKeyEnv: 'MY_KEY' }).id).toBe('vllm:llama');
    // Without apiKeyEnv a local server still needs no key.
    expect(createModel('ollama:qwen2.5', { env: {} }).id).toBe('ollama:qwen2.5');
  });

  it('rejects option values that would misbehave later, naming each (a NaN maxRetries would retry forever)', () => {
    expect(() => createModel('ollama:m', { env: {}, maxRetries: Number.NaN })).toThrow(
      /maxRetries must be an integer >= 0, got NaN/,
    );
    expect(() => createModel('ollama:m', { env: {}, timeoutMs: -5 })).toThrow(
      /timeoutMs must be a number of milliseconds >= 1, got -5/,
    );
    expect(() => createModel('ollama:m', { env: {}, retry: { baseDelayMs: Number.POSITIVE_INFINITY } })).toThrow(
      /retry.baseDelayMs/,
    );
    expect(() => createModel('ollama:m', { env: {}, contextWindow: 0, price: { input: -1, output: 1 } })).toThrow(
      /contextWindow must be an integer >= 1, got 0; price: input/,
    );
    expect(() => createModel('anthropic:claude-x', { env: { ANTHROPIC_API_KEY: 'k' }, maxOutputTokens: 1.5 })).toThrow(
      ModelConfigError,
    );
    expect(() => new AnthropicModel({ model: 'claude-x', apiKey: 'k', defaultMaxTokens: 0 })).toThrow(
      /defaultMaxTokens/,
    );
  });

  it('every preset names its variables', () => {
    for (const p of Object.values(providerPresets)) {
      expect(p.baseURLEnv).toMatch(/^[A-Z_]+$/);
      if (!p.local && p.name !== 'openai-compatible') expect(p.apiKeyEnv).toMatch(/^[A-Z_]+_API_KEY$/);
    }
  });
});

describe('modelFromConfig', () => {
  it('builds a model from a config object, with the key from the named variable', async () => {
    const srv = await startFakeOpenAI([{ text: 'configured' }]);
    servers.push(srv);
    const m = modelFromConfig(
      {
        provider: 'deepseek',
        model: 'deepseek-chat',
        baseURL: srv.url,
        apiKeyEnv: 'MY_DS_KEY',
        maxRetries: 0,
        timeoutMs: 5000,
      },
      { env: { MY_DS_KEY: 'sk-mine' } },
    );
    expect((await m.generate(hi)).parts).toEqual([{ type: 'text', text: 'configured' }]);
    expect(srv.requests[0].headers.authorization).toBe('Bearer sk-mine');
  });

  it('names the invalid field', () => {
    expect(() => modelFromConfig({ provider: 'openai', model: 'gpt-4o', timeoutMs: -1 }, { env: {} })).toThrow(
      /timeoutMs/,
    );
    expect(() => modelFromConfig({ provider: 'openai' }, { env: {} })).toThrow(/- model:/);
    expect(() => modelFromConfig({ provider: 'openai', model: 'x', apiKey: 'sk-secret' }, { env: {} })).toThrow(
      /apiKey/,
    );
    expect(() => modelFromConfig({ provider: 'openai', model: 'x', apiKeyEnv: 'MISSING_VAR' }, { env: {} })).toThrow(
      /MISSING_VAR/,
    );
  });
});
