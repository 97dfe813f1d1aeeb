import { resolve } from 'node:path';
import type { AnyTool } from '../core/index.js';
import { builtinTools } from '../kit/tools/index.js';
import { AppError } from './app-error.js';
import type { AppIO } from './app-io.js';
import { importUserModule } from './user-module.js';

/** Built-in tools (those needing file or process ops only with an env) plus the exported tools of `--tools`. */
export async function workflowTools(
  io: Pick<AppIO, 'cwd'>,
  module: string | undefined,
  hasEnv: boolean,
): Promise<AnyTool[]> {
  const tools = builtinTools({}).filter((t) => hasEnv || t.requires.length === 0);
  if (!module) return tools;
  const abs = resolve(io.cwd, module);
  const exports = await importUserModule(abs).catch((err: Error) => {
    throw new AppError(`--tools: cannot load ${module}: ${err.message}`);
  });
  const isTool = (v: unknown): v is AnyTool =>
    !!v &&
    typeof v === 'object' &&
    typeof (v as AnyTool).id === 'string' &&
    typeof (v as AnyTool).execute === 'function' &&
    'parameters' in (v as object);
  const own = Object.values(exports).flatMap((v) => (Array.isArray(v) ? v.filter(isTool) : isTool(v) ? [v] : []));
  if (!own.length) throw new AppError(`--tools: ${module} exports no tools (defineTool values, or arrays of them)`);
  const ids = new Set(own.map((t) => t.id));
  return [...tools.filter((t) => !ids.has(t.id)), ...own];
}
