// Its declarations name Node's types: the reference lets a consumer whose tsconfig lacks `types: ["node"]` find them.
/// <reference types="node" preserve="true" />
import { EnvError } from '../core/index.js';
import { PLUMBING_OUTPUT_CAP, plumbingEnv } from './plumbing-env.js';
import { runProcessBytes, type ProcessBytes } from './sandbox/run-process.js';

/** Host variables the docker CLI may need to find its engine (passed through; nothing else of the host's is). */
export const DOCKER_CLI_ENV = [
  'DOCKER_HOST',
  'DOCKER_CONTEXT',
  'DOCKER_CONFIG',
  'DOCKER_CERT_PATH',
  'DOCKER_TLS_VERIFY',
  'DOCKER_API_VERSION',
];

/**
 * The docker command-line client, run with an argument list (never a shell) and an environment of PATH, HOME and
 * the DOCKER_* variables. A missing program is an EnvError that says so.
 */
export class DockerCli {
  private readonly env: Record<string, string>;

  constructor(
    readonly bin: string,
    passEnv: readonly string[] = DOCKER_CLI_ENV,
  ) {
    const host = process.env;
    this.env = plumbingEnv(host.HOME || '/');
    for (const name of passEnv) if (host[name] !== undefined) this.env[name] = host[name]!;
  }

  /** Runs `docker <args>`. */
  async run(
    args: readonly string[],
    options: { input?: string | Uint8Array; timeoutMs: number; maxOutputBytes?: number; signal?: AbortSignal },
  ): Promise<ProcessBytes> {
    try {
      const { input, maxOutputBytes, ...rest } = options;
      return await runProcessBytes(this.bin, args, {
        env: this.env,
        maxOutputBytes: maxOutputBytes ?? PLUMBING_OUTPUT_CAP,
        ...rest,
        ...(input !== undefined ? { stdin: input } : {}),
      });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new EnvError(
          `DockerEnv needs the docker CLI: "${this.bin}" was not found on PATH (install Docker, or pass docker: "/path/to/docker")`,
          { cause: err },
        );
      }
      throw err;
    }
  }

  /** Runs `docker <args>` and returns stdout; a failure is an EnvError naming `what` and docker's message. */
  async ok(args: readonly string[], what: string, timeoutMs: number): Promise<string> {
    const r = await this.run(args, { timeoutMs });
    if (r.exitCode !== 0)
      throw new EnvError(
        `DockerEnv: ${what}: ${r.timedOut ? `docker did not answer within ${timeoutMs} ms` : firstLines(r.stderr) || `docker exited ${r.exitCode}`}`,
      );
    return r.stdout.toString('utf8');
  }

  /** Checks that the CLI is there and an engine answers (`docker info`), with an error that says which is missing. */
  async check(timeoutMs: number): Promise<void> {
    const r = await this.run(['info', '--format', '{{.ServerVersion}}'], { timeoutMs });
    if (r.exitCode !== 0 || !r.stdout.toString('utf8').trim()) {
      const why = r.timedOut
        ? `no answer within ${timeoutMs} ms`
        : firstLines(r.stderr) || firstLines(r.stdout) || `exit code ${r.exitCode}`;
      throw new EnvError(
        `DockerEnv: the docker CLI is present but no docker engine answers ("docker info" failed: ${why})`,
      );
    }
  }
}

/** The first lines of a command's output, for an error message. */
export function firstLines(b: Buffer, max = 400): string {
  const s = b.toString('utf8').trim();
  return s.length > max ? `${s.slice(0, max)}…` : s;
}
