import { describe, expect, it } from 'vitest';
import { nullEnv } from '../../../src/core/index.js';
import { MemoryEnv } from '../../../src/envs/index.js';
import {
  builtinTools,
  codeSearchTool,
  datetimeTool,
  TodoStore,
  webSearchTool,
  zonedParts,
  type CodeSearchBackend,
  type WebSearchBackend,
} from '../../../src/kit/tools/index.js';
import { callTool } from '../../helpers/qitos-env-fixtures.js';

describe('datetime tool', () => {
  const now = () => new Date('2024-03-10T12:34:56.789Z');

  it('gives the time in the asked time zone with offset, weekday and Unix time', async () => {
    const r = await callTool(datetimeTool({ now, timeZone: 'UTC' }), { timezone: 'Asia/Kolkata' }, nullEnv);
    expect(r.seen).toBe(
      '2024-03-10T18:04:56+05:30 (Sunday) in Asia/Kolkata (India Standard Time, ' +
        'UTC+05:30)\nUTC: 2024-03-10T12:34:56.789Z\nUnix time: 1710074096',
    );
    const utc = await callTool(datetimeTool({ now, timeZone: 'UTC' }), {}, nullEnv);
    expect(utc.seen.split('\n')[0]).toBe(
      '2024-03-10T12:34:56+00:00 (Sunday) in UTC (Coordinated Universal Time, UTC+00:00)',
    );
  });

  it('follows daylight saving time', () => {
    expect(zonedParts(new Date('2024-01-15T12:00:00Z'), 'America/New_York').iso).toBe('2024-01-15T07:00:00-05:00');
    expect(zonedParts(new Date('2024-07-15T12:00:00Z'), 'America/New_York').iso).toBe('2024-07-15T08:00:00-04:00');
  });

  it('an unknown time zone is an error result', async () => {
    const r = await callTool(datetimeTool({ now }), { timezone: 'Mars/Olympus' }, nullEnv);
    expect(r.status).toBe('error');
    expect(r.seen).toMatch(/^unknown time zone "Mars\/Olympus": use an IANA name/);
  });
});

describe('web_search and code_search', () => {
  const web: WebSearchBackend = {
    name: 'fixture',
    async search(query, { limit }) {
      return Array.from({ length: 3 }, (_, i) => ({
        title: `${query} ${i + 1}`,
        url: `https://example.org/${i + 1}`,
        snippet: `snippet\n ${i + 1}`,
      })).slice(0, limit);
    },
  };
  const code: CodeSearchBackend = {
    name: 'fixture',
    async search(query, { language }) {
      return [{ repo: 'acme/app', path: `src/${language ?? 'any'}.ts`, line: 3, snippet: `const ${query} = 1;` }];
    },
  };

  it('say clearly when no backend is configured', async () => {
    const w = await callTool(webSearchTool(), { query: 'qitos' }, nullEnv);
    expect(w.status).toBe('error');
    expect(w.seen).toMatch(/^web_search has no search backend configured/);
    const c = await callTool(codeSearchTool(), { query: 'qitos' }, nullEnv);
    expect(c.status).toBe('error');
    expect(c.seen).toMatch(/^code_search has no code search backend configured/);
  });

  it('render the backend results, from the factory or from services', async () => {
    expect((await callTool(webSearchTool(web), { query: 'q', limit: 2 }, nullEnv)).seen).toBe(
      '1. q 1\n   https://example.org/1\n   snippet 1\n2. q 2\n   https://example.org/2\n   snippet 2',
    );
    expect(
      (await callTool(webSearchTool(), { query: 'q', limit: 1 }, nullEnv, { services: { webSearch: web } })).seen,
    ).toBe('1. q 1\n   https://example.org/1\n   snippet 1');
    expect((await callTool(codeSearchTool(code), { query: 'x', language: 'ts' }, nullEnv)).seen).toBe(
      'acme/app: src/ts.ts:3\n    const x = 1;',
    );
  });
});

describe('builtinTools', () => {
  it('has the default set, adds the optional tools when configured, and honours exclude', () => {
    expect(builtinTools().map((t) => t.id)).toEqual([
      'bash',
      'read',
      'write',
      'edit',
      'glob',
      'grep',
      'todo_write',
      'todo_read',
      'calculate',
      'datetime',
      'platform',
    ]);
    const all = builtinTools({
      webFetch: { allowHosts: ['example.org'] },
      task: {
        createAgent: () => {
          throw new Error('unused');
        },
      },
      webSearch: { name: 'x', search: async () => [] },
      codeSearch: { name: 'y', search: async () => [] },
      exclude: ['platform'],
    });
    expect(all.map((t) => t.id)).toEqual([
      'bash',
      'read',
      'write',
      'edit',
      'glob',
      'grep',
      'todo_write',
      'todo_read',
      'calculate',
      'datetime',
      'web_fetch',
      'task',
      'web_search',
      'code_search',
    ]);
    expect(builtinTools({ bash: false }).every((t) => !t.requires.includes('process'))).toBe(true);
  });

  it('the two todo tools share one store', async () => {
    const env = new MemoryEnv();
    const store = new TodoStore();
    const tools = builtinTools({ todos: store });
    const write = tools.find((t) => t.id === 'todo_write')!;
    const read = tools.find((t) => t.id === 'todo_read')!;
    await callTool(write, { todos: [{ id: 'a', content: 'do it', status: 'pending' }] }, env);
    expect((await callTool(read, {}, env)).seen).toMatch(/^\[ \] a: do it/);
    expect(store.get('run_test')).toEqual([{ id: 'a', content: 'do it', status: 'pending' }]);
  });

  it('every tool documents its parameters as a JSON Schema object', async () => {
    const { toolSpec } = await import('../../../src/core/index.js');
    for (const t of builtinTools({ webFetch: { allowHosts: [] } })) {
      const spec = toolSpec(t);
      expect(spec.inputSchema.type, t.id).toBe('object');
      expect(spec.description.length, t.id).toBeGreaterThan(20);
    }
  });
});
