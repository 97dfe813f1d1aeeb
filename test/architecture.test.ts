import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, dirname } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = resolve(__dirname, '../src');
/**
 * Which top-level layers each layer may import (besides itself):
 * core <- trace <- engine <- (models, envs) <- kit <- bench <- app <- (cli, server). The CLI's `serve`, `board` and
 * `mcp serve` start the server, so cli may import server; the server never imports the CLI.
 */
const ALLOWED: Record<string, string[]> = {
  core: [],
  trace: ['core'],
  engine: ['core', 'trace'],
  models: ['core', 'trace', 'engine'],
  envs: ['core', 'trace', 'engine'],
  kit: ['core', 'trace', 'engine', 'models', 'envs'],
  bench: ['core', 'trace', 'engine', 'models', 'envs', 'kit'],
  app: ['core', 'trace', 'engine', 'models', 'envs', 'kit', 'bench'],
  cli: ['core', 'trace', 'engine', 'models', 'envs', 'kit', 'bench', 'app', 'server'],
  server: ['core', 'trace', 'engine', 'models', 'envs', 'kit', 'bench', 'app'],
};
/**
 * Which src/kit folders each kit folder may use (besides itself), always through the used folder's index.ts: each
 * folder is a room with one door. A new kit folder needs a row here.
 */
const KIT_ALLOWED: Record<string, string[]> = {
  agents: ['parsers', 'prompts'],
  critics: [],
  expr: ['parsers'],
  mcp: ['tools'],
  memory: [],
  parsers: [],
  policies: [],
  prompts: [],
  search: [],
  skills: ['tools', 'yaml'],
  testing: [],
  tools: ['expr'],
  web: ['tools'],
  workflow: ['expr', 'yaml'],
  yaml: [],
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
  return [
    ...text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm),
  ].map((m) => m[1] ?? m[2]);
}

/**
 * A two-column table of a markdown document (`| <first> | may import |`), as rows of names: the first cell's name,
 * and the names in backticks of the second (none for "(nothing of ours)").
 */
function docTable(doc: string, first: string): Record<string, string[]> {
  const lines = doc.split('\n');
  const start = lines.findIndex((l) => new RegExp(`^\\| ${first} \\|`).test(l));
  if (start < 0) throw new Error(`docs/architecture.md has no table headed "| ${first} |"`);
  const out: Record<string, string[]> = {};
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const [name, uses] = line.split('|').slice(1, 3);
    const names = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
    out[names(name)[0]] = names(uses);
  }
  return out;
}

const layerOf = (file: string) => relative(SRC, file).split('/')[0];
/**
 * What breaks the kit's rooms: an import of another kit folder that its row does not allow, or one that goes past
 * that folder's index.ts; a kit folder without a row is named with the row to add. `root` is the src folder.
 */
function kitViolations(files: string[], allowed: Record<string, string[]>, root = SRC): string[] {
  const kitFolderOf = (file: string) => {
    const [layer, folder] = relative(root, file).split('/');
    return layer === 'kit' ? folder : undefined;
  };
  const bad: string[] = [];
  const unknown = new Map<string, Set<string>>();
  for (const file of files) {
    const from = kitFolderOf(file);
    if (!from) continue;
    for (const spec of imports(file)) {
      if (!spec.startsWith('.')) continue;
      const target = resolve(dirname(file), spec).replace(/\.js$/, '.ts');
      const to = kitFolderOf(target);
      if (!to || to === from) continue;
      if (!(from in allowed)) {
        unknown.set(from, (unknown.get(from) ?? new Set()).add(to));
        continue;
      }
      const via = relative(root, target);
      if (!allowed[from].includes(to))
        bad.push(
          `${relative(root, file)} imports ${via}: kit/${from} may not use kit/${to} (its row in ` +
            `KIT_ALLOWED: [${allowed[from].join(', ')}])`,
        );
      else if (via !== `kit/${to}/index.ts`)
        bad.push(`${relative(root, file)} imports ${via}: use kit/${to} through kit/${to}/index.ts`);
    }
  }
  const folders = new Set(files.map(kitFolderOf).filter((f): f is string => f !== undefined && !(f in allowed)));
  for (const folder of folders) {
    const uses = [...(unknown.get(folder) ?? [])].sort();
    bad.push(
      `kit/${folder} has no row in KIT_ALLOWED (test/architecture.test.ts): add  '${folder}': ` +
        `[${uses.map((u) => `'${u}'`).join(', ')}],  (the kit folders it uses now)`,
    );
  }
  return bad;
}

/** The src files a file imports (relative imports, type-only ones included: they tie the files together just the same). */
function localImports(file: string): string[] {
  return imports(file)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => resolve(dirname(file), spec).replace(/\.js$/, '.ts'))
    .filter((target) => target.startsWith(SRC));
}

/** The import cycles of a graph: its strongly connected components of more than one file, or a file importing itself (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const scc: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      scc.push(w);
    } while (w !== v);
    if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(scc.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

/** Longest function (declaration, method, accessor, constructor, arrow or expression) a file in src/engine may hold, in lines. */
const MAX_ENGINE_FUNCTION_LINES = 80;

/** The functions of a TypeScript source longer than `max` lines, as `name (n lines, line l)`. */
function longFunctions(fileName: string, text: string, max: number): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
      const name =
        node.name && ts.isIdentifier(node.name)
          ? node.name.text
          : ts.isConstructorDeclaration(node)
            ? 'constructor'
            : '(anonymous)';
      if (last - first + 1 > max) out.push(`${name} (${last - first + 1} lines, line ${first})`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

describe('architecture', () => {
  const all = files(SRC).filter((f) => relative(SRC, f).includes('/'));

  it('dependency arrows point core <- trace <- engine <- (models, envs) <- kit <- bench <- app <- (cli, server)', () => {
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
        if (to !== from && !(ALLOWED[from] ?? []).includes(to))
          bad.push(`${relative(SRC, file)} (${from}) imports ${spec} (${to})`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('src/core does no I/O', () => {
    const bad = all
      .filter((f) => layerOf(f) === 'core')
      .flatMap((f) =>
        imports(f)
          .filter((s) => NODE_IO.test(s))
          .map((s) => `${relative(SRC, f)}: ${s}`),
      );
    expect(bad).toEqual([]);
  });

  it('the engine does no file, network or process I/O (its trace goes through src/trace)', () => {
    const bad = all
      .filter((f) => layerOf(f) === 'engine')
      .flatMap((f) =>
        imports(f)
          .filter((s) => /^(node:)?(fs|fs\/promises|net|http|https|child_process)$/.test(s))
          .map((s) => `${relative(SRC, f)}: ${s}`),
      );
    expect(bad).toEqual([]);
  });

  it('src/ has no import cycles', () => {
    const graph = new Map(files(SRC).map((f) => [f, localImports(f)]));
    expect(cycles(graph).map((c) => c.map((f) => relative(SRC, f)).join(' <-> '))).toEqual([]);
  });

  it('the cycle finder finds a cycle where there is one (so the test above can fail)', () => {
    const g = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['d']],
      ['e', ['a']],
    ]);
    expect(cycles(g)).toEqual([['a', 'b', 'c'], ['d']]);
  });

  it(
    `every function in src/engine is at most ${MAX_ENGINE_FUNCTION_LINES} lines (a phase's ` +
      `detail goes into a function of its own)`,
    () => {
      const long = all
        .filter((f) => layerOf(f) === 'engine')
        .flatMap((f) =>
          longFunctions(f, readFileSync(f, 'utf8'), MAX_ENGINE_FUNCTION_LINES).map((l) => `${relative(SRC, f)}: ${l}`),
        );
      expect(long).toEqual([]);
    },
  );

  it('the function-length count sees methods, arrows and nested functions (so the test above can fail)', () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  x(${i});`).join('\n');
    const text =
      `class A {\n  m() {\n${body(4)}\n  }\n}\nconst f = () => {\n${body(2)}\n};\nfunction g() ` +
      `{\n  function h() {\n${body(5)}\n  }\n}\n`;
    expect(longFunctions('a.ts', text, 5)).toEqual([
      'm (6 lines, line 2)',
      'g (9 lines, line 13)',
      'h (7 lines, line 14)',
    ]);
  });

  it('each src/kit folder uses only the kit folders its KIT_ALLOWED row names, through their index.ts', () => {
    expect(kitViolations(all, KIT_ALLOWED)).toEqual([]);
  });

  it('the kit rule names a deep import, a forbidden one and the row a new folder needs (so the test above can fail)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'qitos-arch-'));
    try {
      const write = (path: string, text: string) => {
        mkdirSync(dirname(join(dir, path)), { recursive: true });
        writeFileSync(join(dir, path), text);
      };
      write('src/kit/a/index.ts', "export { x } from './x.js';\n");
      write(
        'src/kit/a/x.ts',
        "import { y } from '../b/y.js';\nimport { z } from '../c/index.js';\nexport const x = y + z;\n",
      );
      write('src/kit/b/y.ts', 'export const y = 1;\n');
      write('src/kit/c/index.ts', 'export const z = 1;\n');
      write(
        'src/kit/d/index.ts',
        "import { x } from '../a/index.js';\nimport { y } from '../b/y.js';\nexport const w = x + y;\n",
      );
      const fake = [
        'src/kit/a/index.ts',
        'src/kit/a/x.ts',
        'src/kit/b/y.ts',
        'src/kit/c/index.ts',
        'src/kit/d/index.ts',
      ].map((f) => join(dir, f));
      const out = kitViolations(fake, { a: ['b'], b: [], c: [] }, join(dir, 'src'));
      expect(out).toEqual([
        'kit/a/x.ts imports kit/b/y.ts: use kit/b through kit/b/index.ts',
        'kit/a/x.ts imports kit/c/index.ts: kit/a may not use kit/c (its row in KIT_ALLOWED: [b])',
        "kit/d has no row in KIT_ALLOWED (test/architecture.test.ts): add  'd': ['a', 'b'],  (the kit folders it uses now)",
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('docs/architecture.md draws the same layer and kit tables as this test', () => {
    const doc = readFileSync(resolve(__dirname, '../docs/architecture.md'), 'utf8');
    expect(docTable(doc, 'layer')).toEqual(ALLOWED);
    expect(docTable(doc, 'kit folder')).toEqual(KIT_ALLOWED);
  });

  it('knows every layer it finds', () => {
    expect([...new Set(all.map(layerOf))].filter((l) => !(l in ALLOWED))).toEqual([]);
  });
});
