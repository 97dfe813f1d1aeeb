import { resolve } from 'node:path';
import { zodIssueField, zodIssueMessage } from '../core/format-zod-issue.js';
import { CliError } from './cli-error.js';
import { loadConfigFile, mergeConfig } from './config-loader.js';
import { QitosConfig } from './config-schema.js';

/** The flags every running command (run, fork) shares with the config file. */
export interface ConfigFlags {
  config?: string;
  model?: string;
  traceDir?: string;
  maxSteps?: number;
  /** A host workspace folder (shorthand for `env: { type: host, root }`). */
  workspace?: string;
}

/**
 * The effective config: `base` (defaults, or the parent run's config for fork) <- the `--config` file <- flags.
 * When `--model` names another provider than the config's model, the config's provider options are dropped
 * (they belong to the other provider); sampling params stay.
 */
export async function effectiveConfig(base: QitosConfig, flags: ConfigFlags, cwd: string): Promise<QitosConfig> {
  let config: QitosConfig = base;
  if (flags.config) config = mergeConfig(config, await loadConfigFile(flags.config, cwd));
  if (flags.model) {
    const sameProvider = config.model && provider(config.model.id) === provider(flags.model);
    config = { ...config, model: { ...(sameProvider ? config.model : { params: config.model?.params }), id: flags.model } };
    if (config.model && config.model.params === undefined) delete config.model.params;
  }
  if (flags.traceDir) config = mergeConfig(config, { trace: { dir: flags.traceDir } });
  if (flags.maxSteps !== undefined) config = mergeConfig(config, { engine: { maxSteps: flags.maxSteps } });
  // Recorded absolute, so replay and fork from another folder find the same workspace.
  if (flags.workspace) config = { ...config, env: { type: 'host', root: resolve(cwd, requireText(flags.workspace, '--workspace')) } };
  const parsed = QitosConfig.safeParse(config);
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    const field = zodIssueField(i);
    const flag = field === 'model.id' ? '--model' : field === 'trace.dir' ? '--trace-dir' : field === 'engine.maxSteps' ? '--max-steps' : field === 'env.root' ? '--workspace' : field;
    throw new CliError(`${flag}: ${zodIssueMessage(i)}`);
  }
  return parsed.data;
}

function provider(id: string): string {
  return id.split(':')[0];
}

/** Makes sure a required string option is present and not blank. */
export function requireText(value: string | undefined, flag: string): string {
  if (!value || !value.trim()) throw new CliError(`${flag} is required and must not be empty`);
  return value;
}
