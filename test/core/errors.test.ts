import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ModelError, ParseError, QitosError, bugStack, classifyError } from '../../src/core/errors.js';
import { ERROR_SAMPLES, sampleClass, type ErrorSample } from '../helpers/error-classes.js';

const SRC = join(__dirname, '../../src');
const SECOND_CORE = '../../src/core/errors.js?second-copy';

/** The module namespace of a sample's file, and of a second copy of that file (its classes are other objects). */
async function modules(s: ErrorSample): Promise<{ one: Record<string, unknown>; two: Record<string, unknown> }> {
  const one = (await import(/* @vite-ignore */ `../../src/${s.src}`)) as Record<string, unknown>;
  const two = (await import(/* @vite-ignore */ `../../src/${s.src}?second-copy`)) as Record<string, unknown>;
  return { one, two };
}

/** Every `class X extends Y` in src/, read with the TypeScript parser: X -> Y. */
function classesInSrc(): Map<string, { base: string; file: string }> {
  const out = new Map<string, { base: string; file: string }>();
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if (e.name.endsWith('.ts')) {
        const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.ES2022, true);
        const visit = (node: ts.Node): void => {
          if ((ts.isClassDeclaration(node) || ts.isClassExpression(node)) && node.name) {
            const ext = node.heritageClauses?.find((h) => h.token === ts.SyntaxKind.ExtendsKeyword)?.types[0];
            if (ext) out.set(node.name.text, { base: ext.expression.getText(file), file: relative(SRC, path) });
          }
          ts.forEachChild(node, visit);
        };
        visit(file);
      }
    }
  };
  walk(SRC);
  return out;
}

describe('errors: one base', () => {
  it('every error class in src/ extends QitosError, and every one has a sample here', () => {
    const classes = classesInSrc();
    const isError = (name: string, seen = 0): boolean => {
      if (name === 'Error' || name === 'QitosError') return true;
      const c = classes.get(name);
      return c !== undefined && seen < 20 && isError(c.base, seen + 1);
    };
    const errorClasses = [...classes].filter(([name]) => isError(name));
    expect(errorClasses.filter(([name, c]) => c.base === 'Error' && name !== 'QitosError')).toEqual([]);
    const files = Object.fromEntries(errorClasses.map(([name, c]) => [name, c.file]));
    const sampled = Object.fromEntries(ERROR_SAMPLES.map((s) => [s.cls, s.src]));
    expect(sampled).toEqual(files);
  });

  it.each(ERROR_SAMPLES.map((s) => [`${s.cls} (${s.kind})`, s] as const))(
    '%s is a QitosError of its kind and keeps its name, message and fields',
    async (_, s) => {
      const { one } = await modules(s);
      const e = s.make(one);
      expect(e).toBeInstanceOf(QitosError);
      expect(e).toBeInstanceOf(Error);
      expect(e).toBeInstanceOf(sampleClass(one, s));
      expect((e as QitosError).kind).toBe(s.kind);
      expect([e.name, e.message]).toEqual([s.name, s.message]);
      for (const [field, value] of Object.entries(s.fields ?? {})) expect((e as never)[field], field).toEqual(value);
      expect(e.stack).toContain(s.message);
    },
  );
});

describe('errors: isInstance across two copies of the package', () => {
  it.each(ERROR_SAMPLES.map((s) => [s.cls, s] as const))(
    '%s.isInstance is true for one made by a second copy, where instanceof is false',
    async (_, s) => {
      const { one, two } = await modules(s);
      const A = sampleClass(one, s);
      const B = sampleClass(two, s);
      expect(B).not.toBe(A);
      const fromTwo = s.make(two);
      expect(fromTwo instanceof A).toBe(false);
      expect(A.isInstance(fromTwo)).toBe(true);
      expect(QitosError.isInstance(fromTwo)).toBe(true);
      expect(B.isInstance(s.make(one))).toBe(true);
    },
  );

  it('isInstance tells the classes apart exactly as instanceof does within one copy', async () => {
    const loaded = await Promise.all(ERROR_SAMPLES.map(async (s) => ({ s, ...(await modules(s)) })));
    const wrong: string[] = [];
    for (const a of loaded)
      for (const b of loaded) {
        const A = sampleClass(a.one, a.s);
        const expected = b.s.make(b.one) instanceof A;
        if (A.isInstance(b.s.make(b.two)) !== expected) wrong.push(`${a.s.cls}.isInstance(${b.s.cls}): ${!expected}`);
      }
    expect(wrong).toEqual([]);
    // the pairs users meet most, spelled out
    const core2 = (await import(/* @vite-ignore */ SECOND_CORE)) as typeof import('../../src/core/errors.js');
    expect(ParseError.isInstance(new core2.ModelError('server', 'HTTP 503'))).toBe(false);
    expect(ModelError.isInstance(new core2.ParseError('no JSON'))).toBe(false);
    expect(core2.AbortedError.isInstance(new core2.TimeBudgetError(1))).toBe(true);
    expect(core2.TimeBudgetError.isInstance(new core2.AbortedError())).toBe(false);
  });

  it('is false for anything that is not one: a plain Error of the same name, objects, primitives', () => {
    const lookalike = Object.assign(new Error('no JSON'), { name: 'ParseError', kind: 'parse' });
    for (const v of [lookalike, { kind: 'parse', message: 'x' }, null, undefined, 'ParseError', 42, Symbol('x')]) {
      expect(ParseError.isInstance(v)).toBe(false);
      expect(QitosError.isInstance(v)).toBe(false);
    }
    // the marker is on the prototype, not an own field: it does not show in JSON, keys or util.inspect
    const e = new ParseError('no JSON');
    expect(Object.getOwnPropertySymbols(e)).toEqual([]);
  });

  it("a user's own subclass without a marker: its isInstance is instanceof, and it is still a QitosError", () => {
    class QuotaError extends QitosError {
      constructor() {
        super('tool', 'quota spent');
      }
    }
    class OtherError extends QitosError {}
    expect(QuotaError.isInstance(new QuotaError())).toBe(true);
    expect(QuotaError.isInstance(new QitosError('tool', 'x'))).toBe(false);
    expect(QuotaError.isInstance(new OtherError('tool', 'x'))).toBe(false);
    expect(QitosError.isInstance(new QuotaError())).toBe(true);
    expect(classifyError(new QuotaError())).toBe('tool');
  });
});

describe('errors: what RECOVER reads', () => {
  it.each(ERROR_SAMPLES.map((s) => [`${s.cls} (${s.kind})`, s] as const))(
    '%s is classified as before, from either copy; a bug stack is kept exactly for the kinds RECOVER does not read',
    async (_, s) => {
      const { one, two } = await modules(s);
      for (const e of [s.make(one), s.make(two)]) {
        expect(classifyError(e)).toBe(s.recover);
        // A RECOVER kind carries its own message; any other error ends the run as a bug, with its stack.
        expect(bugStack(e) !== undefined).toBe(s.kind !== s.recover);
      }
    },
  );

  it('an AbortError is aborted; a plain Error, a non-error and a QitosError of a kind nobody knows are internal', () => {
    expect(classifyError(new DOMException('stop', 'AbortError'))).toBe('aborted');
    expect(classifyError(new Error('boom'))).toBe('internal');
    expect(classifyError('boom')).toBe('internal');
    expect(classifyError(new QitosError('from_a_newer_version' as never, 'x'))).toBe('internal');
  });
});
