import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../helpers/mcp-fixtures.js';

describe('the MCP SDK is loaded lazily', () => {
  it('importing qitos-ts/mcp loads no @modelcontextprotocol module; the first connection does', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        '--import',
        'tsx',
        resolve(ROOT, 'test/fixtures/mcp/loaded-modules.mjs'),
        resolve(ROOT, 'src/kit/mcp/index.ts'),
        'connect',
      ],
      { cwd: ROOT, timeout: 80_000 },
    );
    const r = JSON.parse(stdout.trim().split('\n').at(-1)!) as { afterImport: number; afterConnect: number };
    expect(r.afterImport).toBe(0);
    expect(r.afterConnect).toBeGreaterThan(0);
  }, 90_000);
});
