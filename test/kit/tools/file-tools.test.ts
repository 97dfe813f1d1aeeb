import { describe, expect, it } from 'vitest';
import {
  bashTool,
  editTool,
  globTool,
  grepTool,
  platformTool,
  readTool,
  TodoStore,
  todoReadTool,
  todoWriteTool,
  writeTool,
} from '../../../src/kit/tools/index.js';
import { callTool, envCases } from '../../helpers/qitos-env-fixtures.js';

const BINARY = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);

function numbered(from: number, lines: string[]): string {
  return lines.map((l, i) => `${String(from + i).padStart(6)}\t${l}`).join('\n');
}

for (const kind of envCases) {
  describe(`file tools on ${kind.name}`, () => {
    const seed = () => ({
      'notes.txt': 'alpha\nbeta\ngamma\n',
      'src/app.ts': 'export function add(a: number, b: number) {\n  return a + b;\n}\n// TODO: more\n',
      'src/util.ts': 'const x = 1;\nconst x2 = 1;\n// todo lower\n',
      'src/crlf.txt': 'one\r\ntwo\r\n',
      'img.png': BINARY,
      'big.txt': Array.from({ length: 5000 }, (_, i) => `line ${i + 1}`).join('\n') + '\n',
    });

    describe('read', () => {
      it('shows numbered lines, pages with offset/limit and says how to continue', async () => {
        const ws = kind.make(seed());
        try {
          expect((await callTool(readTool(), { path: 'notes.txt' }, ws.env)).seen).toBe(
            numbered(1, ['alpha', 'beta', 'gamma']),
          );
          const page = await callTool(readTool(), { path: 'notes.txt', offset: 2, limit: 1 }, ws.env);
          expect(page.seen).toBe(
            `${numbered(2, ['beta'])}\n\n(Showing lines 2-2 of 3 in "notes.txt". Read more with offset=3.)`,
          );
          const big = await callTool(readTool(), { path: 'big.txt' }, ws.env);
          expect(big.seen.split('\n')[0]).toBe(numbered(1, ['line 1']));
          expect(big.seen).toContain('Read more with offset=');
          expect(Buffer.byteLength(big.seen)).toBeLessThan(52 * 1024);
          const tail = await callTool(readTool(), { path: 'big.txt', offset: 4999 }, ws.env);
          expect(tail.seen).toBe(numbered(4999, ['line 4999', 'line 5000']));
          expect((await callTool(readTool(), { path: 'src/crlf.txt' }, ws.env)).seen).toBe(numbered(1, ['one', 'two']));
        } finally {
          ws.cleanup();
        }
      });

      it('refuses binary files, folders, missing files, offsets past the end and paths outside', async () => {
        const ws = kind.make(seed());
        try {
          const cases: Array<[Record<string, unknown>, RegExp]> = [
            [{ path: 'img.png' }, /"img.png" looks like a binary file/],
            [{ path: 'src' }, /"src" is a folder, not a file. List it with glob/],
            [{ path: 'app.ts' }, /File not found: "app.ts". Files with that name: src\/app.ts/],
            [{ path: 'notes.txt', offset: 10 }, /offset 10 is past the end of "notes.txt", which has 3 lines/],
            [{ path: '../outside/secret.txt' }, /outside the workspace/],
            [{ path: 'notes.txt', limit: 0 }, /Invalid arguments for tool "read"/],
          ];
          for (const [args, msg] of cases) {
            const r = await callTool(readTool(), args, ws.env);
            expect(r.status, JSON.stringify(args)).toBe('error');
            expect(r.seen).toMatch(msg);
          }
        } finally {
          ws.cleanup();
        }
      });
    });

    describe('write', () => {
      it('creates and replaces files, creating folders, and refuses outside paths without touching them', async () => {
        const ws = kind.make(seed());
        const before = ws.outside();
        try {
          expect((await callTool(writeTool(), { path: 'a/b/new.txt', content: 'x\ny\n' }, ws.env)).seen).toBe(
            'Created "a/b/new.txt" (2 lines, 4 B).',
          );
          expect(await ws.files.readText('a/b/new.txt')).toBe('x\ny\n');
          expect((await callTool(writeTool(), { path: 'notes.txt', content: 'z' }, ws.env)).seen).toBe(
            'Replaced "notes.txt" (1 line, 1 B).',
          );
          for (const p of [
            '../outside/secret.txt',
            '../ws2/secret.txt',
            '/tmp/qitos-escape.txt',
            'src/../../outside/x.txt',
          ]) {
            const r = await callTool(writeTool(), { path: p, content: 'pwned' }, ws.env);
            expect(r.status).toBe('error');
            expect(r.seen).toMatch(/outside the workspace/);
          }
          expect((await callTool(writeTool(), { path: 'src', content: 'x' }, ws.env)).seen).toMatch(
            /"src" is a folder/,
          );
          expect(ws.outside()).toEqual(before);
        } finally {
          ws.cleanup();
        }
      });
    });

    describe('edit', () => {
      it('replaces a unique exact match and shows the edited lines', async () => {
        const ws = kind.make(seed());
        try {
          const r = await callTool(
            editTool(),
            { path: 'src/app.ts', oldString: '  return a + b;', newString: '  return a + b + 0;' },
            ws.env,
          );
          expect(r.status).toBe('success');
          expect(r.seen.split('\n')[0]).toBe('Edited "src/app.ts": replaced 1 occurrence (line 2).');
          expect(r.seen).toContain('     2\t  return a + b + 0;');
          expect(await ws.files.readText('src/app.ts')).toContain('return a + b + 0;');
        } finally {
          ws.cleanup();
        }
      });

      it('refuses ambiguous edits with the count and lines, unless replaceAll', async () => {
        const ws = kind.make(seed());
        try {
          const r = await callTool(editTool(), { path: 'src/util.ts', oldString: '= 1;', newString: '= 2;' }, ws.env);
          expect(r.status).toBe('error');
          expect(r.seen).toBe(
            'oldString occurs 2 times in "src/util.ts" (at lines 1, 2). Include more surrounding ' +
              'lines to pick one occurrence, or set replaceAll to true to replace all of them.',
          );
          expect(await ws.files.readText('src/util.ts')).toBe('const x = 1;\nconst x2 = 1;\n// todo lower\n');
          const all = await callTool(
            editTool(),
            { path: 'src/util.ts', oldString: '= 1;', newString: '= $&2;', replaceAll: true },
            ws.env,
          );
          expect(all.seen.split('\n')[0]).toBe('Edited "src/util.ts": replaced 2 occurrences (lines 1, 2).');
          expect(await ws.files.readText('src/util.ts')).toBe('const x = $&2;\nconst x2 = $&2;\n// todo lower\n');
        } finally {
          ws.cleanup();
        }
      });

      it('says when nothing matches, pointing at a whitespace-only difference; handles CRLF files', async () => {
        const ws = kind.make(seed());
        try {
          const none = await callTool(editTool(), { path: 'src/app.ts', oldString: 'nowhere', newString: 'x' }, ws.env);
          expect(none.status).toBe('error');
          expect(none.seen).toMatch(
            /^oldString was not found in "src\/app.ts", even ignoring whitespace, indentation, escapes and line ends\. Read the file/,
          );
          const near = await callTool(
            editTool(),
            { path: 'src/app.ts', oldString: '  return a + b;\n}\nnot in the file', newString: 'x' },
            ws.env,
          );
          expect(near.seen).toMatch(
            /^oldString was not found in "src\/app.ts".* Its first line appears at line 2: read the file there/,
          );
          const crlf = await callTool(
            editTool(),
            { path: 'src/crlf.txt', oldString: 'one\ntwo', newString: 'uno\ndos' },
            ws.env,
          );
          expect(crlf.status).toBe('success');
          expect(await ws.files.readText('src/crlf.txt')).toBe('uno\r\ndos\r\n');
          for (const [args, msg] of [
            [{ path: 'img.png', oldString: 'PNG', newString: 'GIF' }, /binary file/],
            [
              { path: 'missing.ts', oldString: 'a', newString: 'b' },
              /File not found: "missing.ts". To create it, use write/,
            ],
            [{ path: 'notes.txt', oldString: '', newString: 'b' }, /oldString is empty/],
            [{ path: 'notes.txt', oldString: 'beta', newString: 'beta' }, /the same/],
            [{ path: '../outside/secret.txt', oldString: 'outside', newString: 'pwned' }, /outside the workspace/],
          ] as const) {
            const r = await callTool(editTool(), args, ws.env);
            expect(r.status).toBe('error');
            expect(r.seen).toMatch(msg);
          }
        } finally {
          ws.cleanup();
        }
      });
    });

    describe('glob and grep', () => {
      it('glob lists matching files, says when none match, and caps results', async () => {
        const ws = kind.make(seed());
        try {
          expect((await callTool(globTool(), { pattern: '**/*.ts' }, ws.env)).seen).toBe('src/app.ts\nsrc/util.ts');
          expect((await callTool(globTool(), { pattern: '*.ts', path: 'src' }, ws.env)).seen).toBe(
            'src/app.ts\nsrc/util.ts',
          );
          expect((await callTool(globTool(), { pattern: '*.py' }, ws.env)).seen).toBe('No files match "*.py".');
          const capped = await callTool(globTool({ maxResults: 2 }), { pattern: '**/*' }, ws.env);
          expect(capped.seen).toMatch(/^big.txt\nimg.png\n\n\(Showing the first 2 matches; there are more/);
          expect((await callTool(globTool(), { pattern: '../*' }, ws.env)).status).toBe('error');
          expect((await callTool(globTool(), { pattern: '*', path: '../outside' }, ws.env)).seen).toMatch(
            /outside the workspace/,
          );
        } finally {
          ws.cleanup();
        }
      });

      it('grep finds regex matches with include/exclude filters, skips binaries and caps results', async () => {
        const ws = kind.make(seed());
        try {
          expect(
            (await callTool(grepTool(), { pattern: 'TODO', ignoreCase: true, include: '**/*.ts' }, ws.env)).seen,
          ).toBe('src/app.ts:4: // TODO: more\nsrc/util.ts:3: // todo lower');
          expect(
            (
              await callTool(
                grepTool(),
                { pattern: 'TODO', ignoreCase: true, include: '**/*.ts', exclude: '**/util.ts' },
                ws.env,
              )
            ).seen,
          ).toBe('src/app.ts:4: // TODO: more');
          expect((await callTool(grepTool(), { pattern: 'x\\d?\\s=', path: 'src/util.ts' }, ws.env)).seen).toBe(
            'src/util.ts:1: const x = 1;\nsrc/util.ts:2: const x2 = 1;',
          );
          const binary = await callTool(grepTool(), { pattern: 'PNG' }, ws.env);
          expect(binary.seen).toMatch(
            /^No matches for \/PNG\/ in "\."\.\n\n\(Skipped 1 binary file and 0 files over 2 MB\.\)$/,
          );
          const capped = await callTool(grepTool(), { pattern: '^line \\d+$', maxResults: 3 }, ws.env);
          expect(capped.seen).toBe(
            'big.txt:1: line 1\nbig.txt:2: line 2\nbig.txt:3: line 3\n\n(Showing the first 3 matches; ' +
              'there are more. Use a more specific pattern, a narrower path, or an include glob.)',
          );
          const bad = await callTool(grepTool(), { pattern: '(unclosed' }, ws.env);
          expect(bad.status).toBe('error');
          expect(bad.seen).toMatch(/not a valid regular expression/);
          expect((await callTool(grepTool(), { pattern: 'secret', path: '../outside' }, ws.env)).seen).toMatch(
            /outside the workspace/,
          );
        } finally {
          ws.cleanup();
        }
      });

      it('grep keeps the whole result for the trace when the model sees a cut one', async () => {
        const ws = kind.make(seed());
        try {
          const r = await callTool(
            grepTool({ maxResults: 5000, limits: { maxLines: 10 } }),
            { pattern: 'line' },
            ws.env,
          );
          expect(r.seen.split('\n').slice(0, 10)).toEqual(
            Array.from({ length: 10 }, (_, i) => `big.txt:${i + 1}: line ${i + 1}`),
          );
          expect(r.seen).toMatch(/\[output truncated: showing 10 of 500\d lines .*narrower path/);
          expect(typeof r.output).toBe('string');
          const full = (r.output as string).split('\n');
          expect(full.slice(0, 5000)).toEqual(
            Array.from({ length: 5000 }, (_, i) => `big.txt:${i + 1}: line ${i + 1}`),
          );
          expect(full.slice(5000)).toEqual(['', '(Skipped 1 binary file and 0 files over 2 MB.)']);
        } finally {
          ws.cleanup();
        }
      });
    });

    describe('todos and platform', () => {
      it('todo_write replaces the list per run; todo_read shows it; bad lists are refused', async () => {
        const ws = kind.make();
        const store = new TodoStore();
        const todos = [
          { id: '1', content: 'read the code', status: 'completed' },
          { id: '2', content: 'fix the bug', status: 'in_progress', priority: 'high' },
          { id: '3', content: 'run tests', status: 'pending' },
        ];
        const w = await callTool(todoWriteTool({ store }), { todos }, ws.env, { runId: 'run_a' });
        expect(w.seen).toBe(
          '[x] 1: read the code\n[>] 2: fix the bug (high)\n[ ] 3: run tests\n\n1 completed, 1 in progress, 1 pending, 0 cancelled',
        );
        expect(w.state.status === 'completed' && w.state.metadata?.todos).toEqual(todos);
        expect((await callTool(todoReadTool({ store }), {}, ws.env, { runId: 'run_a' })).seen).toBe(w.seen);
        expect((await callTool(todoReadTool({ store }), {}, ws.env, { runId: 'run_b' })).seen).toBe(
          '(the todo list is empty)',
        );
        // via services, as an engine passes it
        expect((await callTool(todoReadTool(), {}, ws.env, { runId: 'run_a', services: { todos: store } })).seen).toBe(
          w.seen,
        );
        const dup = await callTool(todoWriteTool({ store }), { todos: [todos[0], todos[0]] }, ws.env, {
          runId: 'run_a',
        });
        expect(dup.seen).toMatch(/todo id "1" is used twice/);
        const two = await callTool(
          todoWriteTool({ store }),
          {
            todos: [
              { ...todos[1], id: 'a' },
              { ...todos[1], id: 'b' },
            ],
          },
          ws.env,
          { runId: 'run_a' },
        );
        expect(two.seen).toMatch(/2 items are in_progress \(a, b\)/);
        const bad = await callTool(
          todoWriteTool({ store }),
          { todos: [{ id: '1', content: 'x', status: 'done' }] },
          ws.env,
        );
        expect(bad.seen).toMatch(/Invalid arguments for tool "todo_write"[\s\S]*todos\.0\.status/);
        expect((await callTool(todoReadTool({ store }), {}, ws.env, { runId: 'run_a' })).seen).toBe(w.seen);
        expect((await callTool(todoReadTool(), {}, ws.env)).seen).toMatch(/has no todo store/);
        ws.cleanup();
      });

      it('platform describes the machine and the workspace', async () => {
        const ws = kind.make();
        try {
          const r = await callTool(platformTool(), {}, ws.env);
          expect(r.seen).toContain(`Architecture: ${process.arch}`);
          expect(r.seen).toContain(`Node.js: ${process.version}`);
          expect(r.seen).toContain(`Workspace root: ${ws.files.root}`);
          expect(r.seen).toContain(
            kind.name === 'host' ? 'Shell commands: available (bash)' : 'Shell commands: not available in this env',
          );
        } finally {
          ws.cleanup();
        }
      });
    });

    it('bash needs the process group', async () => {
      const ws = kind.make(seed());
      try {
        const r = await callTool(bashTool(), { command: 'cat notes.txt' }, ws.env);
        if (kind.name === 'memory') {
          expect(r.status).toBe('error');
          expect(r.seen).toBe('tool "bash" needs the "process" op group, and env "memory" has none');
        } else {
          expect(r.seen).toBe('alpha\nbeta\ngamma\n[exit code 0]');
        }
      } finally {
        ws.cleanup();
      }
    });
  });
}
