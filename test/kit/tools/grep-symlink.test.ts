import { symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { globTool, grepTool } from '../../../src/kit/tools/index.js';
import { callTool, envCases } from '../../helpers/qitos-env-fixtures.js';

const host = envCases.find((c) => c.name === 'host')!;

describe('search tools and symlinks out of the workspace (HostEnv)', () => {
  it('grep skips a symlink that points outside, says so, and still searches the rest', async () => {
    const ws = host.make({ 'a.txt': 'secret here too\n' });
    try {
      symlinkSync('../outside/secret.txt', path.join(ws.files.root, 'leak.txt'));
      const r = await callTool(grepTool(), { pattern: 'secret' }, ws.env);
      expect(r.status).toBe('success');
      expect(r.seen).toBe(
        'a.txt:1: secret here too\n\n(Could not read 1 file (leak.txt): outside the workspace or unreadable.)',
      );
      expect(r.seen).not.toContain('outside secret');
      const direct = await callTool(grepTool(), { pattern: 'secret', path: 'leak.txt' }, ws.env);
      expect(direct.status).toBe('error');
      expect(direct.seen).toMatch(/symlink "leak.txt" that points outside/);
      // glob lists the link (it is an entry of the workspace) but never what is behind it
      expect((await callTool(globTool(), { pattern: '*' }, ws.env)).seen).toBe('a.txt\nleak.txt');
    } finally {
      ws.cleanup();
    }
  });
});
