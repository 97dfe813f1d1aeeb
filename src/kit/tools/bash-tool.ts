import { z } from 'zod';
import { defineTool } from '../../core/index.js';
import { processOpsOf, toolError } from './tool-env.js';
import { cutToBytes, formatBytes, truncateOutput, type OutputLimits } from './truncate-output.js';

/** Options of the bash tool. */
export interface BashToolOptions {
  /** Timeout when the call gives none, ms (default 120 000). */
  timeoutMs?: number;
  /** Largest timeout a call may ask for, ms (default 600 000). */
  maxTimeoutMs?: number;
  /** Output (stdout + stderr) beyond which the command is stopped and the call fails (default 1 MiB). */
  maxOutputBytes?: number;
  /** What the model sees of a long output (the rest stays in the trace). */
  limits?: OutputLimits;
}

const REDIRECT_HINT =
  'The full output is kept in the trace. To inspect it yourself, redirect it to a file (cmd ' +
  '> out.txt 2>&1) and read it with read (offset/limit) or grep.';

/**
 * `bash`: runs a shell command with `bash -c` in the workspace (env `process` ops: jailed cwd, cleared
 * environment, process-group kill). A non-zero exit is a normal result the model reads; a timeout or an
 * output flood is an error result.
 */
export function bashTool(options: BashToolOptions = {}) {
  const maxTimeoutMs = options.maxTimeoutMs ?? 600_000;
  const defaultTimeoutMs = Math.min(options.timeoutMs ?? 120_000, maxTimeoutMs);
  const maxOutputBytes = options.maxOutputBytes ?? 1024 * 1024;
  return defineTool({
    id: 'bash',
    description:
      'Run a shell command with bash in the workspace and return its stdout, stderr and exit code. ' +
      `Commands time out after ${defaultTimeoutMs} ms unless timeoutMs says otherwise (max ${maxTimeoutMs} ms); ` +
      `output over ${formatBytes(maxOutputBytes)} stops the command. The environment holds only PATH, HOME (the workspace) and LANG. ` +
      'Where a sandbox is in use, only the workspace is writable, there is no network unless ' +
      'the user allowed it, and background processes end when the command ends (start and use a ' +
      'server in the same command). ' +
      'Prefer read, grep and glob for looking at files.',
    parameters: z.object({
      command: z.string().min(1).describe('The command line, run as `bash -c <command>`.'),
      timeoutMs: z
        .number()
        .int()
        .positive()
        .max(maxTimeoutMs)
        .optional()
        .describe(`Timeout in ms (default ${defaultTimeoutMs}).`),
      cwd: z
        .string()
        .min(1)
        .optional()
        .describe('Folder to run in, relative to the workspace root (default the root).'),
      description: z.string().optional().describe('What the command does, in 5-10 words (shown in logs).'),
    }),
    requires: ['process'],
    timeoutMs: (args) => args.timeoutMs ?? defaultTimeoutMs,
    permission: (args) => ({ kind: 'command', value: args.command }),
    async execute(args, ctx) {
      const proc = processOpsOf(ctx, 'bash');
      const timeoutMs = args.timeoutMs ?? defaultTimeoutMs;
      if (args.description) ctx.metadata({ title: args.description });
      const r = await proc.run(args.command, { cwd: args.cwd, timeoutMs, maxOutputBytes, signal: ctx.signal });
      const combined = [r.stdout, r.stderr ? `[stderr]\n${r.stderr}` : '']
        .filter(Boolean)
        .join(r.stdout.endsWith('\n') ? '' : '\n');
      if (r.timedOut) {
        throw toolError(
          `Command timed out after ${timeoutMs} ms and was killed with all its child processes.` +
            (combined
              ? ` Output before the kill (first 2 KB):\n${cutToBytes(combined, 2048)}\n`
              : ' It printed nothing.') +
            ` Pass a larger timeoutMs (max ${maxTimeoutMs}) or run long jobs in the background with their output sent to a file.`,
        );
      }
      if (r.truncated) {
        throw toolError(
          `Command printed more than ${formatBytes(maxOutputBytes)} and was stopped. First 2 KB:\n${cutToBytes(combined, 2048)}\n` +
            'Redirect the output to a file (cmd > out.txt 2>&1) and look at it with read ' +
            '(offset/limit) or grep, or print less (head, tail, wc -l).',
        );
      }
      const exit = r.exitCode === null ? `[killed by ${r.signal}]` : `[exit code ${r.exitCode}]`;
      const body = combined || '(no output)';
      const text = `${body}${body.endsWith('\n') ? '' : '\n'}${exit}`;
      const t = truncateOutput(text, REDIRECT_HINT, options.limits);
      return {
        output: t.output,
        ...(t.full !== undefined ? { full: t.full } : {}),
        title: args.description ?? args.command.slice(0, 80),
        metadata: {
          exitCode: r.exitCode,
          signal: r.signal,
          durationMs: Math.round(r.durationMs),
          truncated: t.truncated,
        },
      };
    },
  });
}
