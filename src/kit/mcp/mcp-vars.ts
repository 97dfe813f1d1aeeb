import type { McpServerConfig } from './mcp-config.js';

const VAR = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** What a recorded config holds in place of a literal `env` or `headers` value (it may be a secret). */
export const MCP_REDACTED = '<redacted>';

/**
 * Replaces each `${NAME}` in `text` with `env[NAME]`. Anything else, a lone `$` included, stays as written.
 * An unset variable is an error naming `where` and the variable; a recorded value that was redacted is one too.
 */
export function expandVars(text: string, env: Record<string, string | undefined>, where: string): string {
  if (text === MCP_REDACTED) {
    throw new Error(
      `${where} was not recorded (a trace keeps no literal env or header value): write it as ` +
        `\${VAR} so replay and fork read it from the environment, or give it with \`qitos fork ` +
        `--config\``,
    );
  }
  return text.replace(VAR, (_m, name: string) => {
    const value = env[name];
    if (value === undefined) throw new Error(`${where} uses \${${name}}, which is not set in the environment`);
    return value;
  });
}

/**
 * The values of every `${VAR}` a server config names (args, env, cwd, url, headers), from `env`: what its
 * expansion put in, for the run's redactor to keep out of every record (the server may print them back).
 */
export function referencedVarValues(cfg: McpServerConfig, env: Record<string, string | undefined>): string[] {
  const fields =
    cfg.type === 'stdio'
      ? [...(cfg.args ?? []), ...Object.values(cfg.env ?? {}), cfg.cwd ?? '']
      : [cfg.url, ...Object.values(cfg.headers ?? {})];
  const values: string[] = [];
  for (const f of fields) for (const m of f.matchAll(VAR)) if (env[m[1]] !== undefined) values.push(env[m[1]]!);
  return values;
}

/** True when `text` names at least one `${VAR}`. */
export function hasVars(text: string): boolean {
  VAR.lastIndex = 0;
  return VAR.test(text);
}

/**
 * A server config with every `${VAR}` expanded from `env` (args, env values and cwd of a stdio server; url and
 * header values of an HTTP server). Errors name the server and the field.
 */
export function expandServerConfig<C extends McpServerConfig>(
  name: string,
  cfg: C,
  env: Record<string, string | undefined>,
): C {
  const at = (field: string) => `mcp.${name}.${field}`;
  const map = (rec: Record<string, string> | undefined, field: string) =>
    rec && Object.fromEntries(Object.entries(rec).map(([k, v]) => [k, expandVars(v, env, at(`${field}.${k}`))]));
  if (cfg.type === 'stdio') {
    return {
      ...cfg,
      ...(cfg.args ? { args: cfg.args.map((a, i) => expandVars(a, env, at(`args.${i}`))) } : {}),
      ...(cfg.env ? { env: map(cfg.env, 'env') } : {}),
      ...(cfg.cwd ? { cwd: expandVars(cfg.cwd, env, at('cwd')) } : {}),
    };
  }
  return {
    ...cfg,
    url: expandVars(cfg.url, env, at('url')),
    ...(cfg.headers ? { headers: map(cfg.headers, 'headers') } : {}),
  };
}

/**
 * The MCP config as the trace manifest records it: `${VAR}` references stay as written (their values are never
 * recorded) and every literal `env` or `headers` value is replaced by `<redacted>`, since those are where
 * tokens live. Fork and replay read the variables again from their own environment.
 */
export function recordableMcpConfig<T extends Record<string, McpServerConfig>>(config: T): T {
  const redact = (rec: Record<string, string> | undefined) =>
    rec && Object.fromEntries(Object.entries(rec).map(([k, v]) => [k, hasVars(v) ? v : MCP_REDACTED]));
  const out: Record<string, McpServerConfig> = {};
  for (const [name, cfg] of Object.entries(config)) {
    out[name] =
      cfg.type === 'stdio'
        ? { ...cfg, ...(cfg.env ? { env: redact(cfg.env) } : {}) }
        : { ...cfg, ...(cfg.headers ? { headers: redact(cfg.headers) } : {}) };
  }
  return out as T;
}
