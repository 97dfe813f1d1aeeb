import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { getPath, parseSetting, parseSettingValue, schemaKeysAt, setPath } from '../../src/app/config-set.js';
import { QitosConfig } from '../../src/app/config-schema.js';
import { qitos, recordCalcRun, tempDir } from '../helpers/cli-harness.js';

const key = fc
  .string({ minLength: 1, maxLength: 6 })
  .filter((k) => !['__proto__', 'prototype', 'constructor'].includes(k) && !k.includes('.'));
const path = fc.array(key, { minLength: 1, maxLength: 4 });
const config = fc.dictionary(
  key,
  fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.dictionary(key, fc.jsonValue({ maxDepth: 2 }))),
);

describe('setPath / getPath (the --set setter)', () => {
  it('set then get returns the value; the input is not changed; keys off the path are untouched (property)', () => {
    fc.assert(
      fc.property(config, path, fc.jsonValue(), (obj, p, value) => {
        const before = structuredClone(obj);
        const out = setPath(obj, p, value);
        expect(getPath(out, p)).toEqual(value);
        expect(obj).toEqual(before);
        // Every top-level key other than the path's first is the same value.
        for (const k of Object.keys(obj)) if (k !== p[0]) expect(out[k]).toEqual(obj[k]);
        // Siblings along the path keep their values.
        for (let i = 1; i < p.length; i++) {
          const parentBefore = getPath(obj, p.slice(0, i));
          if (!parentBefore || typeof parentBefore !== 'object' || Array.isArray(parentBefore)) continue;
          for (const [k, v] of Object.entries(parentBefore))
            if (k !== p[i]) expect(getPath(out, [...p.slice(0, i), k])).toEqual(v);
        }
      }),
    );
  });

  it('a path through a scalar replaces it with an object; "__proto__" stays data', () => {
    expect(setPath({ policies: { doomLoop: true } }, ['policies', 'doomLoop', 'threshold'], 3)).toEqual({
      policies: { doomLoop: { threshold: 3 } },
    });
    const out = setPath({}, ['a'], 1);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });

  it('values: JSON scalars, arrays and objects are parsed; anything else is the text', () => {
    expect(['0', '0.7', '-3', '1e3', 'true', 'false', 'null'].map(parseSettingValue)).toEqual([
      0,
      0.7,
      -3,
      1000,
      true,
      false,
      null,
    ]);
    expect(parseSettingValue('["a","b"]')).toEqual(['a', 'b']);
    expect(parseSettingValue('{"x":1}')).toEqual({ x: 1 });
    expect(['openai:gpt-4o', '0x10', '', 'True', '[not json', '1.2.3'].map(parseSettingValue)).toEqual([
      'openai:gpt-4o',
      '0x10',
      '',
      'True',
      '[not json',
      '1.2.3',
    ]);
    expect(parseSetting('agent.prompt=a=b')).toMatchObject({
      key: 'agent.prompt',
      path: ['agent', 'prompt'],
      value: 'a=b',
    });
    expect(() => parseSetting('novalue')).toThrow('--set novalue: expected key=value');
    expect(() => parseSetting('a..b=1')).toThrow('is not a dotted path');
    expect(() => parseSetting('agent.__proto__.x=1')).toThrow('"__proto__" cannot be a field');
  });

  it('schemaKeysAt lists the fields the config schema has at a path', () => {
    expect(schemaKeysAt(QitosConfig, [])).toContain('engine');
    expect(schemaKeysAt(QitosConfig, ['engine'])).toContain('maxSteps');
    expect(schemaKeysAt(QitosConfig, ['policies', 'doomLoop'])).toContain('threshold');
    expect(schemaKeysAt(QitosConfig, ['engine', 'maxSteps'])).toBeUndefined();
  });
});

describe('--set on run, fork and bench run', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ dir, cleanup } = await tempDir('qitos-set-')));
  afterEach(() => cleanup());

  it('run records the set fields in the manifest; fork sets over the recorded config', async () => {
    const { traceDir } = await recordCalcRun(dir, [
      '--set',
      'engine.maxSteps=7',
      '--set',
      'agent.note=first run',
      '--set',
      'policies.doomLoop=true',
    ]);
    const m = JSON.parse(readFileSync(join(resolve(dir, traceDir), 'manifest.json'), 'utf8'));
    expect(m.config).toMatchObject({
      engine: { maxSteps: 7 },
      agent: { note: 'first run' },
      policies: { doomLoop: true },
    });
    const f = await qitos(
      [
        'fork',
        traceDir,
        '--at',
        '0',
        '--json',
        '--set',
        'policies.doomLoop.threshold=4',
        '--set',
        'model.params.temperature=0.25',
      ],
      dir,
    );
    expect(f.code, f.err).toBe(0);
    const fm = JSON.parse(readFileSync(join(resolve(dir, JSON.parse(f.out).traceDir), 'manifest.json'), 'utf8'));
    expect(fm.config).toMatchObject({
      engine: { maxSteps: 7 },
      agent: { note: 'first run' },
      policies: { doomLoop: { threshold: 4 } },
      model: { params: { temperature: 0.25 } },
    });
  });

  it('a bad path or value is one error naming the key and what was expected', async () => {
    const cases: Array<[string, string]> = [
      [
        'engine.maxStep=3',
        '--set engine.maxStep=3: engine has no field "maxStep" (expected one of: maxSteps, maxSeconds',
      ],
      ['engine.maxSteps=abc', '--set engine.maxSteps=abc: '],
      ['foo=1', '--set foo=1: no config section "foo" (expected one of: model, engine, workflow, policies'],
      ['policies.doomLoop.onDetect=loud', '--set policies.doomLoop.onDetect=loud: '],
      ['model=42', '--set model=42: expected a model id "provider:model"'],
      ['engine.maxSteps', '--set engine.maxSteps: expected key=value'],
    ];
    for (const [set, message] of cases) {
      const r = await qitos(
        ['bench', 'run', join(__dirname, '../../benchmarks/arithmetic'), '-o', 'x', '--no-progress', '--set', set],
        dir,
      );
      expect(r.code, set).not.toBe(0);
      expect(r.err, set).toContain(message);
      expect(r.err.trim().split('\n'), set).toHaveLength(1);
    }
    const num = await qitos(['run', 'agent.ts', '--task', 't', '--set', 'engine.maxSteps=abc'], dir);
    expect(num.err).toMatch(/--set engine\.maxSteps=abc: .*expected number, received string/);
    const enumErr = await qitos(['run', 'agent.ts', '--task', 't', '--set', 'policies.doomLoop.onDetect=loud'], dir);
    expect(enumErr.err).toMatch(/--set policies\.doomLoop\.onDetect=loud: .*"stop"\|"warn"/);
  });

  it('--set model=<id> is --model; a later --set wins over the file and the flags', async () => {
    const r = await qitos(
      [
        'bench',
        'run',
        join(__dirname, '../../benchmarks/arithmetic'),
        '-o',
        'r',
        '--no-progress',
        '--json',
        '--max-steps',
        '3',
        '--set',
        'engine.maxSteps=6',
        '--set',
        'model=scripted:nope.json',
      ],
      dir,
    );
    // The scripted file does not exist: every trial fails at setup, but the settings are what was asked.
    const run = JSON.parse(readFileSync(join(dir, 'r/run.json'), 'utf8'));
    expect(run.config).toMatchObject({ model: { id: 'scripted:nope.json' }, engine: { maxSteps: 6 } });
    expect(r.code).not.toBe(0);
  });
});
