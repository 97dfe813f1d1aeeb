import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { parsePermissionConfig, type PermissionConfig } from '../core/index.js';
import { zodIssueField, zodIssueMessage } from '../core/format-zod-issue.js';
import { AppError } from './app-error.js';
import { loadConfigFile, mergeConfig } from './config-loader.js';
import { QitosConfig } from './config-schema.js';
import { parseSetting, schemaKeysAt, setPath, type Setting } from './config-set.js';

/** The flags every running command (run, fork) shares with the config file. */
export interface ConfigFlags {
  config?: string;
  model?: string;
  traceDir?: string;
  maxSteps?: number;
  /** A host workspace folder (shorthand for `env: { type: host, root }`). */
  workspace?: string;
  /** `--permission <file>`: YAML or JSON permission rules that replace the config's `permission`. */
  permission?: string;
  /** `--set key=value` (repeatable): dotted config paths, applied over the file and the other flags. `model=<id>` is `--model <id>`. */
  set?: string[];
  /** `--mcp <file.yaml>`: the MCP servers of another config file join this run's (a server of the same name is replaced). */
  mcp?: string;
  /** `--otel <endpoint>`: export the runs live to this OTLP collector (`telemetry.endpoint`). */
  otel?: string;
  /** `--otel-content`: put message content on the spans (`telemetry.content`). */
  otelContent?: boolean;
}

/**
 * The effective config: `base` (defaults, or the parent run's config for fork) <- the `--config` file <- flags <-
 * `--set`s. When `--model` names another provider than the config's model, the config's provider options are
 * dropped (they belong to the other provider); sampling params stay.
 */
export async function effectiveConfig(base: QitosConfig, flags: ConfigFlags, cwd: string): Promise<QitosConfig> {
  let config: QitosConfig = base;
  const sets = (flags.set ?? []).map(parseSetting);
  if (flags.config) config = mergeConfig(config, await loadConfigFile(flags.config, cwd));
  if (flags.mcp) {
    const servers = (await loadConfigFile(flags.mcp, cwd)).mcp;
    if (!servers || Object.keys(servers).length === 0)
      throw new AppError(
        `--mcp ${flags.mcp}: the file has no MCP servers (write them under an mcp: section, as in qitos.yaml)`,
      );
    config = { ...config, mcp: { ...config.mcp, ...servers } };
  }
  if (flags.model) config = withModel(config, flags.model);
  if (flags.traceDir) config = mergeConfig(config, { trace: { dir: flags.traceDir } });
  if (flags.otel) config = mergeConfig(config, { telemetry: { enabled: true, endpoint: flags.otel } });
  if (flags.otelContent) config = mergeConfig(config, { telemetry: { content: true } });
  if (flags.maxSteps !== undefined) config = mergeConfig(config, { engine: { maxSteps: flags.maxSteps } });
  if (flags.permission) config = { ...config, permission: await loadPermissionFile(flags.permission, cwd) };
  // Recorded absolute, so replay and fork from another folder find the same workspace.
  if (flags.workspace)
    config = { ...config, env: { type: 'host', root: resolve(cwd, requireText(flags.workspace, '--workspace')) } };
  for (const s of sets) {
    if (s.key === 'model') {
      if (typeof s.value !== 'string')
        throw new AppError(`--set ${s.text}: expected a model id "provider:model", e.g. model=openai:gpt-4o-mini`);
      config = withModel(config, s.value);
    } else config = setPath(config, s.path, s.value) as QitosConfig;
  }
  const parsed = QitosConfig.safeParse(config);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    const set = settingOf(sets, zodIssueField(first));
    if (set) {
      const i = unionBranchIssue(first, set.key);
      throw new AppError(`--set ${set.text}: ${setIssueText(set, i, zodIssueField(i))}`);
    }
    const i = first;
    const field = zodIssueField(i);
    const flag =
      field === 'model.id'
        ? '--model'
        : field === 'trace.dir'
          ? '--trace-dir'
          : field === 'telemetry.endpoint'
            ? '--otel'
            : field === 'engine.maxSteps'
              ? '--max-steps'
              : field === 'env.root'
                ? '--workspace'
                : field;
    throw new AppError(`${flag}: ${zodIssueMessage(i)}`);
  }
  return parsed.data;
}

/** The config with another model id; another provider's options are dropped, sampling params stay. */
export function withModel(config: QitosConfig, id: string): QitosConfig {
  const sameProvider = config.model && provider(config.model.id) === provider(id);
  const out: QitosConfig = {
    ...config,
    model: { ...(sameProvider ? config.model : { params: config.model?.params }), id },
  };
  if (out.model && out.model.params === undefined) delete out.model.params;
  return out;
}

/** The last `--set` an issue at `field` comes from: its key is the field, inside it, or contains it. */
function settingOf(sets: Setting[], field: string): Setting | undefined {
  const inside = (a: string, b: string) => a === b || a.startsWith(`${b}.`);
  return [...sets].reverse().find((s) => inside(field, s.key) || inside(s.key, field));
}

type Issue = Parameters<typeof zodIssueMessage>[0];

/**
 * For a value no branch of a union accepts (e.g. `policies.doomLoop`: a boolean or options), the issue of the
 * branch that got furthest along the `--set` key, with its full path; other issues as they are.
 */
function unionBranchIssue(issue: Issue, key: string): Issue {
  if (issue.code !== 'invalid_union') return issue;
  const nested = issue.errors
    .flat()
    .map((i) => unionBranchIssue({ ...i, path: [...issue.path, ...i.path] } as Issue, key));
  const depth = (i: Issue) => {
    const f = zodIssueField(i);
    return key === f || key.startsWith(`${f}.`) || f.startsWith(`${key}.`) ? f.split('.').length : -1;
  };
  const best = nested.reduce<Issue | undefined>((b, i) => (b === undefined || depth(i) > depth(b) ? i : b), undefined);
  return best && depth(best) > issue.path.length ? best : issue;
}

/** What was wrong with a `--set`, and what was expected (the known fields, for an unknown one). */
function setIssueText(set: Setting, issue: Issue, field: string): string {
  if (issue.code === 'unrecognized_keys') {
    const parent = issue.path.map(String);
    const known = schemaKeysAt(QitosConfig, parent);
    return `${parent.length ? `${parent.join('.')} has no field "${issue.keys[0]}"` : `no config section "${issue.keys[0]}"`}${known ? ` (expected one of: ${known.join(', ')})` : ''}`;
  }
  return `${field === set.key ? '' : `${field}: `}${zodIssueMessage(issue)}`;
}

function provider(id: string): string {
  return id.split(':')[0];
}

/** Makes sure a required string option is present and not blank. */
export function requireText(value: string | undefined, flag: string): string {
  if (!value || !value.trim()) throw new AppError(`${flag} is required and must not be empty`);
  return value;
}

/** Reads a `--permission` file: YAML or JSON rules, either the rules themselves or a document with a `permission:` key. */
async function loadPermissionFile(path: string, cwd: string): Promise<PermissionConfig> {
  const text = await readFile(resolve(cwd, path), 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new AppError(
      `--permission: ${err.code === 'ENOENT' ? `file not found: ${path}` : `cannot read ${path}: ${err.message}`}`,
    );
  });
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new AppError(`--permission ${path}: not valid YAML or JSON: ${(err as Error).message.split('\n')[0]}`);
  }
  const rules =
    doc && typeof doc === 'object' && !Array.isArray(doc) && Object.keys(doc).length === 1 && 'permission' in doc
      ? (doc as { permission: unknown }).permission
      : doc;
  try {
    return parsePermissionConfig(rules, `${path}: permission`);
  } catch (err) {
    throw new AppError((err as Error).message);
  }
}
