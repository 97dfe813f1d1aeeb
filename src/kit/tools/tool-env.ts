import type { FileOps, ProcessOps, ToolContext } from '../../core/index.js';
import { QitosError } from '../../core/index.js';

/** The env's file ops, or a tool error naming the tool and the missing group (preflight normally catches it first). */
export function fileOpsOf(ctx: ToolContext, tool: string): FileOps {
  const ops = ctx.env.ops('file');
  if (!ops)
    throw new QitosError('tool', `tool "${tool}" needs the "file" op group, and env "${ctx.env.name}" has none`);
  return ops;
}

/** The env's process ops, or a tool error naming the tool and the missing group. */
export function processOpsOf(ctx: ToolContext, tool: string): ProcessOps {
  const ops = ctx.env.ops('process');
  if (!ops)
    throw new QitosError('tool', `tool "${tool}" needs the "process" op group, and env "${ctx.env.name}" has none`);
  return ops;
}

/** A tool failure the model reads as the call's error. */
export function toolError(message: string): QitosError {
  return new QitosError('tool', message);
}
