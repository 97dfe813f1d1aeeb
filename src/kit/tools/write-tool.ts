import { z } from 'zod';
import { defineTool } from '../../core/index.js';
import { fileOpsOf, toolError } from './tool-env.js';
import { formatBytes } from './truncate-output.js';

/** `write`: creates or replaces a text file in the workspace (folders are created as needed). */
export function writeTool() {
  return defineTool({
    id: 'write',
    description:
      "Create a text file, or replace a file's whole content, in the workspace. Missing folders " +
      'are created. To change part of a file, use edit.',
    parameters: z.object({
      path: z.string().min(1).describe('File path, relative to the workspace root (or absolute inside it).'),
      content: z.string().describe('The complete new content of the file.'),
    }),
    requires: ['file'],
    permission: (args) => ({ kind: 'path', value: args.path }),
    edits: true,
    async execute(args, ctx) {
      const files = fileOpsOf(ctx, 'write');
      const before = await files.stat(args.path);
      if (before?.type === 'directory') throw toolError(`"${before.path}" is a folder; give a file path inside it.`);
      await files.writeText(args.path, args.content);
      const after = await files.stat(args.path);
      const shown = after?.path ?? args.path;
      const bytes = Buffer.byteLength(args.content, 'utf8');
      const lines = args.content === '' ? 0 : args.content.split('\n').length - (args.content.endsWith('\n') ? 1 : 0);
      return {
        output: `${before ? 'Replaced' : 'Created'} "${shown}" (${lines} line${lines === 1 ? '' : 's'}, ${formatBytes(bytes)}).`,
        title: shown,
        metadata: { path: shown, created: !before, bytes, lines },
      };
    },
  });
}
