import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergeConfig, parseConfig } from '../../src/app/config-loader.js';
import { AppError } from '../../src/app/app-error.js';
import { yamlBomb } from '../helpers/yaml-bomb.js';

function errorOf(text: string): string {
  try {
    parseConfig(text, 'qitos.yaml');
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return (err as Error).message;
  }
  throw new Error('expected a config error');
}

describe('config file', () => {
  it('parses a full config', () => {
    const c = parseConfig(
      [
        'model:',
        '  id: openai:gpt-4o-mini',
        '  options: { timeoutMs: 30000, maxRetries: 1, apiKeyEnv: MY_KEY }',
        '  params: { temperature: 0.2, maxOutputTokens: 512 }',
        'engine: { maxSteps: 20, maxSeconds: 60, maxRecoveries: 2, parallelTools: true }',
        'policies:',
        '  doomLoop: true',
        '  compaction: { contextWindow: 32000, protectTurns: 3 }',
        'trace: { dir: runs }',
        'agent: { system: hi, anything: [1, 2] }',
      ].join('\n'),
      'qitos.yaml',
    );
    expect(c.model?.options).toEqual({ timeoutMs: 30000, maxRetries: 1, apiKeyEnv: 'MY_KEY' });
    expect(c.policies).toEqual({ doomLoop: true, compaction: { contextWindow: 32000, protectTurns: 3 } });
    expect(c.agent).toEqual({ system: 'hi', anything: [1, 2] });
  });

  it('an empty file is an empty config', () => {
    expect(parseConfig('', 'x.yaml')).toEqual({});
    expect(parseConfig('# only a comment\n', 'x.yaml')).toEqual({});
  });

  it('errors name the file, the line and the field', () => {
    expect(errorOf('model:\n  id: openai:gpt-4o\nengine:\n  maxSteps: many\n')).toBe(
      'qitos.yaml:4: engine.maxSteps: Invalid input: expected number, received string',
    );
    expect(errorOf('engine:\n  maxSteps: 3\n  maxStep: 4\n')).toBe(
      'qitos.yaml:3: engine.maxStep: unknown field "maxStep"',
    );
    expect(errorOf('trace:\n  dir: x\nmodels: {}\n')).toBe('qitos.yaml:3: models: unknown field "models"');
    expect(errorOf('model:\n  params: {}\n')).toMatch(/^qitos\.yaml:2: model\.id: /);
    expect(errorOf('model:\n  id: gpt4\n')).toBe(
      'qitos.yaml:2: model.id: expected "provider:model", e.g. "openai:gpt-4o-mini" or "scripted:replies.json"',
    );
    expect(errorOf('policies:\n  doomLoop:\n    threshold: 1\n')).toMatch(/^qitos\.yaml:3: policies\.doomLoop/);
    expect(errorOf('model:\n  id: openai:x\n  options:\n    baseURL: not a url\n')).toMatch(
      /^qitos\.yaml:4: model\.options\.baseURL: /,
    );
    expect(errorOf('- a\n- b\n')).toMatch(/^qitos\.yaml:1: \(top level\): /);
  });

  it('YAML syntax errors name the line', () => {
    expect(errorOf('engine:\n  maxSteps: 3\n bad: [\n')).toMatch(/^qitos\.yaml:\d+: YAML syntax error: /);
    expect(errorOf('a: 1\na: 2\n')).toMatch(/^qitos\.yaml:2: YAML syntax error: Map keys must be unique/);
    expect(errorOf(`engine:\n  maxSteps: 3\n${yamlBomb('x')}`)).toBe(
      'qitos.yaml:4: YAML aliases expand to too much data (more than 100 alias expansions; the first alias is here)',
    );
  });

  it('mergeConfig: every leaf the override sets wins, keys it does not name keep the base', () => {
    const plain = (x: unknown): x is Record<string, unknown> => !!x && typeof x === 'object' && !Array.isArray(x);
    const leaves = (o: Record<string, unknown>, path: string[] = []): Array<[string[], unknown]> =>
      Object.entries(o).flatMap(([k, v]) =>
        plain(v) ? leaves(v, [...path, k]) : [[[...path, k], v] as [string[], unknown]],
      );
    const at = (o: unknown, path: string[]) => path.reduce<unknown>((x, k) => (plain(x) ? x[k] : undefined), o);
    const json = fc.jsonValue();
    const obj = fc.dictionary(
      fc.string({ maxLength: 3 }),
      fc.oneof(json, fc.dictionary(fc.string({ maxLength: 3 }), json)),
    );
    fc.assert(
      fc.property(obj, obj, (base, over) => {
        const merged = mergeConfig(base as Record<string, unknown>, over as Record<string, unknown>);
        for (const [path, v] of leaves(over as Record<string, unknown>)) expect(at(merged, path)).toEqual(v);
        for (const k of Object.keys(base))
          if (!Object.hasOwn(over, k)) expect(merged[k]).toEqual((base as Record<string, unknown>)[k]);
      }),
    );
    const polluted = mergeConfig({ a: {} }, JSON.parse('{"a": {"__proto__": {"x": 1}}}'));
    expect(Object.getPrototypeOf(polluted.a)).toBe(Object.prototype);
    expect(Object.hasOwn(polluted.a as object, '__proto__')).toBe(true);
    expect(mergeConfig({ a: 1, b: { c: 2 } }, { a: undefined, b: { d: 3 } })).toEqual({ a: 1, b: { c: 2, d: 3 } });
  });
});

describe('docs/config.md', () => {
  it('its example config is valid', async () => {
    const { readFile } = await import('node:fs/promises');
    const md = await readFile(new URL('../../docs/config.md', import.meta.url), 'utf8');
    const yaml = /```yaml\n([\s\S]*?)```/.exec(md)![1];
    const c = parseConfig(yaml, 'docs/config.md');
    // every section of the schema is shown in the docs' example
    const { QitosConfig } = await import('../../src/app/config-schema.js');
    expect(Object.keys(c).sort()).toEqual(Object.keys(QitosConfig.shape).sort());
  });
});
