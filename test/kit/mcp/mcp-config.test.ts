import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MCP_REDACTED,
  expandServerConfig,
  expandVars,
  parseMcpConfig,
  recordableMcpConfig,
  toolAllowed,
  wildcardMatch,
  type McpServerConfig,
} from '../../../src/kit/mcp/index.js';

const varName = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,8}$/);
// literal text that cannot form a ${NAME} reference by itself (a lone `$`, `{` or `}` is fine)
const literal = fc
  .string({ maxLength: 12 })
  .filter((s) => !/\$\{[A-Za-z_][A-Za-z0-9_]*\}/.test(s) && s !== MCP_REDACTED && !s.endsWith('$'));

describe('mcp: config', () => {
  it('accepts stdio and http servers and names the field of a problem', () => {
    const cfg = parseMcpConfig({
      fs: {
        type: 'stdio',
        command: 'npx',
        args: ['-y', 'server'],
        env: { A: 'b' },
        timeout: 5000,
        tools: { include: ['read_*'], exclude: ['read_secret'] },
      },
      web: {
        type: 'http',
        url: 'https://example.com/mcp',
        headers: { Authorization: 'Bearer ${TOKEN}' },
        enabled: false,
        sampling: { maxTokens: 100 },
        elicitation: { action: 'accept', content: { name: 'qitos' } },
      },
    });
    expect(Object.keys(cfg)).toEqual(['fs', 'web']);
    expect(() => parseMcpConfig({ fs: { type: 'stdio' } })).toThrow('invalid MCP config: fs.command: ');
    expect(() => parseMcpConfig({ fs: { type: 'ftp', url: 'x' } })).toThrow(/invalid MCP config: fs.type/);
    expect(() => parseMcpConfig({ fs: { type: 'stdio', command: 'x', timeot: 5 } })).toThrow(
      'invalid MCP config: fs: unknown field "timeot"',
    );
    expect(() => parseMcpConfig({ 'bad name': { type: 'stdio', command: 'x' } })).toThrow(
      /invalid MCP config: bad name.*letters, digits/,
    );
    expect(() => parseMcpConfig({ fs: { type: 'stdio', command: 'x', timeout: -1 } })).toThrow(/fs.timeout/);
    expect(() => parseMcpConfig({ fs: { type: 'stdio', command: 'x', elicitation: { action: 'maybe' } } })).toThrow(
      /fs.elicitation.action/,
    );
  });
});

describe('mcp: ${VAR} expansion', () => {
  it('replaces each ${NAME} with its value and keeps every other character', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(literal, varName, fc.string({ maxLength: 10 }))), literal, (pieces, tail) => {
        const env: Record<string, string> = {};
        let template = '';
        let expected = '';
        for (const [lit, name, value] of pieces) {
          const v = env[name] ?? value;
          env[name] = v;
          template += `${lit}\${${name}}`;
          expected += lit + v;
        }
        expect(expandVars(template + tail, env, 'x')).toBe(expected + tail);
      }),
    );
  });

  it('fails on an unset variable and on a value the recording redacted, naming the field', () => {
    expect(() => expandVars('Bearer ${NOPE}', {}, 'mcp.web.headers.Authorization')).toThrow(
      'mcp.web.headers.Authorization uses ${NOPE}, which is not set in the environment',
    );
    expect(() => expandVars(MCP_REDACTED, {}, 'mcp.fs.env.TOKEN')).toThrow(
      /mcp.fs.env.TOKEN was not recorded .* write it as \$\{VAR\}/,
    );
    expect(expandVars('cost: $5 {x} $HOME ${', {}, 'x')).toBe('cost: $5 {x} $HOME ${');
  });

  it('expands args, env values and cwd of stdio servers, url and headers of http servers, nothing else', () => {
    const env = { TOKEN: 'sk-1', DIR: '/data' };
    const stdio: McpServerConfig = {
      type: 'stdio',
      command: '${DIR}/bin',
      args: ['--root', '${DIR}'],
      env: { API_KEY: '${TOKEN}' },
      cwd: '${DIR}',
    };
    expect(expandServerConfig('fs', stdio, env)).toEqual({
      type: 'stdio',
      command: '${DIR}/bin',
      args: ['--root', '/data'],
      env: { API_KEY: 'sk-1' },
      cwd: '/data',
    });
    const http: McpServerConfig = {
      type: 'http',
      url: 'https://h/${DIR}',
      headers: { Authorization: 'Bearer ${TOKEN}' },
    };
    expect(expandServerConfig('web', http, env)).toEqual({
      type: 'http',
      url: 'https://h//data',
      headers: { Authorization: 'Bearer sk-1' },
    });
    expect(() => expandServerConfig('fs', { ...stdio, args: ['${MISSING}'] }, env)).toThrow(
      'mcp.fs.args.0 uses ${MISSING}',
    );
  });
});

describe('mcp: the config a trace records', () => {
  it('never holds a literal env or header value, and keeps ${VAR} references as written', () => {
    const value = fc.oneof(
      literal,
      varName.map((n) => `\${${n}}`),
      fc.tuple(literal, varName).map(([l, n]) => `${l}\${${n}}`),
    );
    fc.assert(
      fc.property(fc.dictionary(varName, value), fc.dictionary(varName, value), (env, headers) => {
        const rec = recordableMcpConfig({
          a: { type: 'stdio', command: 'x', env },
          b: { type: 'http', url: 'http://h', headers },
        } as Record<string, McpServerConfig>);
        for (const [given, kept] of [
          [env, (rec.a as { env: Record<string, string> }).env],
          [headers, (rec.b as { headers: Record<string, string> }).headers],
        ] as const) {
          // A reference is a whole `${NAME}`; an unterminated `${A` is a literal (maybe a secret) and is redacted.
          for (const [k, v] of Object.entries(given))
            expect(kept[k]).toBe(/\$\{[A-Za-z_][A-Za-z0-9_]*\}/.test(v) ? v : MCP_REDACTED);
        }
      }),
      { examples: [[{ K: '${A' }, { H: 'x${B' }]] },
    );
  });
});

describe('mcp: tools filter', () => {
  it('matches `*` wildcards like the equivalent regex', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'b', '_', '.', '/'), maxLength: 10 });
    const pattern = fc.string({ unit: fc.constantFrom('a', 'b', '*', '_', '.'), maxLength: 8 });
    fc.assert(
      fc.property(pattern, text, (p, t) => {
        const re = new RegExp(
          `^${p
            .split('*')
            .map((s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))
            .join('.*')}$`,
          's',
        );
        expect(wildcardMatch(p, t)).toBe(re.test(t));
      }),
      { numRuns: 500 },
    );
  });

  it('keeps what include names and exclude does not', () => {
    const f = { include: ['read_*', 'list'], exclude: ['*secret*'] };
    expect(['read_file', 'read_secret_key', 'list', 'write_file'].filter((n) => toolAllowed(n, f))).toEqual([
      'read_file',
      'list',
    ]);
    expect(toolAllowed('anything', undefined)).toBe(true);
    expect(toolAllowed('x', { exclude: ['x'] })).toBe(false);
  });
});
