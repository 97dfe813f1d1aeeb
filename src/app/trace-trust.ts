import { canonicalJson, type Manifest } from '../core/index.js';
import type { Trace } from '../trace/index.js';
import { AppError } from './app-error.js';
import type { QitosConfig } from './config-schema.js';
import type { AppIO } from './app-io.js';
import { terminalText } from './terminal-text.js';

/** The flags of replay and fork that decide what of a recorded run is used. */
export interface TrustFlags {
  /** The user's agent module instead of the recorded one. */
  agent?: string;
  /** The user's model: the recorded provider options (base URL, headers, key variable) are dropped. */
  model?: string;
  /** Use what an unsigned trace names (printed first). */
  trustTrace?: boolean;
  /** Import the recorded agent module even though its content changed since the run (its sha-256 differs). */
  allowChangedAgent?: boolean;
  /** Replay only: run the recorded tool calls again. */
  liveTools?: boolean;
  /** Fork only: act on a recorded candidate decision (its tool calls run here). */
  branch?: number;
}

/** One thing a recorded run would make this machine run, contact or write: the manifest field, its value, what it does. */
export interface TraceUse {
  field: string;
  value: string;
  does: string;
  /** The flag that replaces it with the user's own choice, when there is one. */
  instead?: string;
}

/**
 * Why a trace does not count as written here, or undefined when it does: its manifest carries a valid signature
 * under this machine's trace key and every file of the folder matches the digest it signs (docs/security.md,
 * "A trace from elsewhere").
 */
export function untrustedReason(
  trace: Pick<Trace, 'signature' | 'signatureProblem' | 'manifest'>,
  keyPath: string | undefined,
): string | undefined {
  if (trace.signature === 'signed') return undefined;
  if (!keyPath) return 'it cannot be checked (no trace key: neither XDG_CONFIG_HOME nor HOME is set)';
  if (trace.signature === 'mismatch')
    return "its manifest signature does not match this machine's trace key (written elsewhere, or edited)";
  if (trace.signature === 'files-changed') {
    // A run that never finished was signed when it started: its JSONL files grew since.
    const unfinished =
      trace.manifest.status === 'running' ? ' (its run never finished: the manifest was signed when it started)' : '';
    return `its files do not match what its signature covers: ${trace.signatureProblem ?? 'a file changed'}${unfinished}`;
  }
  if (trace.signature === 'manifest-only')
    return (
      'its signature covers only its manifest (it was written before qitos signed traces ' +
      'whole), so nothing vouches for its steps and events'
    );
  return trace.signature === 'unsigned'
    ? 'its manifest is not signed'
    : `this machine has no trace key yet (${keyPath})`;
}

/**
 * What a run rebuilt from `m` with `config` would take from the trace: the agent module (unless `--agent`),
 * model connection options, MCP servers, the host workspace and its sandbox, skill folders, the trace folder,
 * and (replay `--live-tools`) the recorded tool calls. A config field counts only while it still holds the
 * recorded value (a `--config` file or flag that replaced it is the user's choice).
 */
export function traceUses(m: Manifest, recorded: QitosConfig, config: QitosConfig, flags: TrustFlags): TraceUse[] {
  const uses: TraceUse[] = [];
  const same = (a: unknown, b: unknown) => a !== undefined && canonicalJson(a) === canonicalJson(b);
  if (!flags.agent && m.agent.module)
    uses.push({ field: 'agent.module', value: m.agent.module, does: 'code to import and run', instead: '--agent' });
  const o = config.model?.options;
  const ro = recorded.model?.options;
  if (same(o?.baseURL, ro?.baseURL))
    uses.push({
      field: 'config.model.options.baseURL',
      value: o!.baseURL!,
      does: 'where model requests and your API key go',
      instead: '--model',
    });
  if (same(o?.headers, ro?.headers))
    uses.push({
      field: 'config.model.options.headers',
      value: Object.keys(o!.headers!).join(', '),
      does: 'headers sent with every model request',
      instead: '--model',
    });
  if (same(o?.apiKeyEnv, ro?.apiKeyEnv))
    uses.push({
      field: 'config.model.options.apiKeyEnv',
      value: o!.apiKeyEnv!,
      does: 'the variable whose key is sent',
      instead: '--model',
    });
  for (const [name, s] of Object.entries(config.mcp ?? {})) {
    if (!same(s, recorded.mcp?.[name])) continue;
    if (s.type === 'stdio')
      uses.push({
        field: `config.mcp.${name}.command`,
        value: [s.command, ...(s.args ?? [])].join(' '),
        does: 'an MCP server to start',
      });
    else uses.push({ field: `config.mcp.${name}.url`, value: s.url, does: 'an MCP server to contact' });
  }
  const env = config.env;
  if (env?.type === 'host' && same(env, recorded.env)) {
    const sandbox = typeof env.sandbox === 'object' ? env.sandbox : { mode: env.sandbox };
    const notes = [
      env.allowEnv?.length ? `commands see ${env.allowEnv.join(', ')}` : '',
      sandbox.mode === 'none' ? 'no sandbox' : '',
      sandbox.network ? 'network allowed' : '',
      sandbox.bwrap ? `sandbox program ${sandbox.bwrap}` : '',
      sandbox.readOnly?.length ? `also reads ${sandbox.readOnly.join(', ')}` : '',
    ].filter(Boolean);
    uses.push({
      field: 'config.env',
      value: [env.root, ...notes].join('; '),
      does: 'the host folder tools read, write and run commands in',
      instead: '--workspace',
    });
  }
  if (config.skills && same(config.skills, recorded.skills))
    uses.push({
      field: 'config.skills.roots',
      value: config.skills.roots.join(', '),
      does: 'folders read and shown to the model',
    });
  if (same(config.trace?.dir, recorded.trace?.dir))
    uses.push({
      field: 'config.trace.dir',
      value: config.trace!.dir!,
      does: 'where the new trace is written',
      instead: '--trace-dir',
    });
  if (flags.liveTools)
    uses.push({ field: '--live-tools', value: 'the recorded tool calls', does: 'run again on this machine' });
  if (flags.branch !== undefined)
    uses.push({
      field: '--branch',
      value: `recorded candidate ${flags.branch}`,
      does: 'its tool calls run on this machine',
    });
  return uses;
}

/**
 * The recorded config a run from an untrusted trace starts from: with `--model`, the recorded provider options
 * are dropped whatever the provider (they would send the user's key where the trace says).
 */
export function untrustedBase(recorded: QitosConfig, flags: TrustFlags): QitosConfig {
  if (!flags.model || !recorded.model?.options) return recorded;
  const { options: _options, ...model } = recorded.model;
  return { ...recorded, model };
}

/**
 * Refuses, in one line naming each field, to use what an untrusted trace names; with `--trust-trace` prints
 * first what will be run, contacted and written, and goes on.
 */
export function checkTraceTrust(
  io: Pick<AppIO, 'err'>,
  dir: string,
  why: string | undefined,
  uses: TraceUse[],
  flags: TrustFlags,
): void {
  if (why === undefined || uses.length === 0) return;
  if (!flags.trustTrace) {
    const fields = uses
      .map(
        (u) => `${printable(u.field)} (${printable(u.value)}: ${u.does}${u.instead ? `; or pass ${u.instead}` : ''})`,
      )
      .join(', ');
    throw new AppError(
      `refusing to use what trace ${dir} names, because ${why}: ${fields}; pass --trust-trace to use them`,
    );
  }
  io.err(
    `--trust-trace: trace ${dir} is used as it is (${why}); it ` +
      `names:\n${uses.map((u) => `  ${printable(u.field)}: ${printable(u.value)} (${u.does})\n`).join('')}`,
  );
}

/** Text from a trace as the terminal shows it: a value cannot end the line or hide itself. */
function printable(text: string): string {
  return terminalText(text);
}
