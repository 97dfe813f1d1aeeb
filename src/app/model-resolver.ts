import type { Model } from '../core/index.js';
import { createModel, ModelConfigError } from '../models/index.js';
import type { QitosConfig } from './config-schema.js';
import { AppError } from './app-error.js';
import { scriptedModelFromFile } from './scripted-model-file.js';

/**
 * The model a config names. `scripted:<file.json>` is a ScriptedModel from a file of replies (offline runs
 * and tests); anything else goes to the providers' factory `createModel("provider:model", options)`.
 */
export async function resolveModel(
  spec: NonNullable<QitosConfig['model']>,
  cwd: string,
  env: Record<string, string | undefined>,
): Promise<Model> {
  if (spec.id.startsWith('scripted:')) return scriptedModelFromFile(spec.id.slice('scripted:'.length), cwd);
  try {
    return createModel(spec.id, { ...spec.options, env });
  } catch (err) {
    if (ModelConfigError.isInstance(err)) throw new AppError(err.message.split('\n')[0]);
    throw err;
  }
}
