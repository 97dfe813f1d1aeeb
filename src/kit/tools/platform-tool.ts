import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { defineTool } from '../../core/index.js';

/** `platform`: the OS, CPU architecture, Node version, shell availability and where the workspace is. */
export function platformTool() {
  return defineTool({
    id: 'platform',
    description:
      'Describe the machine the tools run on: operating system, architecture, Node.js version, and the workspace root.',
    parameters: z.object({}),
    execute(_args, ctx) {
      const files = ctx.env.ops('file');
      const processes = ctx.env.ops('process');
      const root = files?.root;
      // A root that is not on disk (MemoryEnv) has no meaningful path from the current directory.
      const rel = root && existsSync(root) ? path.relative(process.cwd(), root) || '.' : undefined;
      const info = {
        os: `${os.type()} ${os.release()} (${process.platform})`,
        arch: process.arch,
        node: process.version,
        cpus: os.cpus().length,
        env: ctx.env.name,
        workspaceRoot: root ?? null,
        workspaceFromCwd: rel ?? null,
        canRunCommands: processes !== undefined,
      };
      const lines = [
        `OS: ${info.os}`,
        `Architecture: ${info.arch}`,
        `Node.js: ${info.node}`,
        `CPUs: ${info.cpus}`,
        `Env: ${info.env}`,
        root
          ? `Workspace root: ${root} (${rel !== undefined ? `${rel} from the current directory` : 'virtual, in memory'})`
          : 'Workspace: none (this env has no file ops)',
        `Shell commands: ${info.canRunCommands ? 'available (bash)' : 'not available in this env'}`,
      ];
      return { output: lines.join('\n'), title: `${process.platform}/${process.arch}`, metadata: info };
    },
  });
}
