import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(__dirname, '../src');
/** Which top-level layers each layer may import (besides itself). */
const ALLOWED: Record<string, string[]> = {
  core: [],
  engine: ['core'],
  models: ['core', 'engine'],
  envs: ['core', 'engine'],
  kit: ['core', 'engine', 'models', 'envs'],
  cli: ['core', 'engine', 'models', 'envs', 'kit'],
  // The `qitos-ts/trace` entry re-exports the trace code from where it lives today (engine, cli) until the
  // trace layer is its own folder.
  trace: ['core', 'engine', 'cli'],
};
const NODE_IO = /^(node:)?(fs|fs\/promises|net|http|https|child_process|dgram|tls|worker_threads|process)$/;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm)].map((m) => m[1] ?? m[2]);
}

const layerOf = (file: string) => relative(SRC, file).split('/')[0];

describe('architecture', () => {
  const all = files(SRC).filter((f) => relative(SRC, f).includes('/'));

  it('dependency arrows point core <- engine <- (models, envs, kit) <- cli', () => {
    const bad: string[] = [];
    for (const file of all) {
      const from = layerOf(file);
      for (const spec of imports(file)) {
        if (!spec.startsWith('.')) continue;
        const target = resolve(dirname(file), spec);
        if (!target.startsWith(SRC)) {
          bad.push(`${relative(SRC, file)} imports outside src: ${spec}`);
          continue;
        }
        const to = layerOf(target);
        if (to !== from && !(ALLOWED[from] ?? []).includes(to)) bad.push(`${relative(SRC, file)} (${from}) imports ${spec} (${to})`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('src/core does no I/O', () => {
    const bad = all.filter((f) => layerOf(f) === 'core').flatMap((f) => imports(f).filter((s) => NODE_IO.test(s)).map((s) => `${relative(SRC, f)}: ${s}`));
    expect(bad).toEqual([]);
  });

  it('the engine does I/O only in its trace files', () => {
    const bad = all
      .filter((f) => layerOf(f) === 'engine' && !/\/trace[^/]*\.ts$/.test(f))
      .flatMap((f) => imports(f).filter((s) => /^(node:)?(fs|fs\/promises|net|http|https|child_process)$/.test(s)).map((s) => `${relative(SRC, f)}: ${s}`));
    expect(bad).toEqual([]);
  });

  it('knows every layer it finds', () => {
    expect([...new Set(all.map(layerOf))].filter((l) => !(l in ALLOWED))).toEqual([]);
  });
});
