import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Env, FileOps, OpGroups, ProcessOps, Task } from '../core/index.js';
import { EnvError, newId } from '../core/index.js';
import { DockerCli, DOCKER_CLI_ENV, firstLines } from './docker-cli.js';
import { DockerFileOps, type DockerTarget } from './docker-file-ops.js';
import { DockerProcessOps } from './docker-process-ops.js';

/** Options of a DockerEnv: an `image` to start a container from, or a running `container` to work in. */
export interface DockerEnvOptions {
  /** Image of the container the env starts for each run (and removes at its end). */
  image?: string;
  /** A running container to work in instead (never started, reset or removed by the env). */
  container?: string;
  /** The workspace folder inside the container (absolute; default `/workspace`, made if missing). */
  workdir?: string;
  /** A host folder whose contents are copied into the workspace when the container starts (with `image`). */
  copyFrom?: string;
  /** A host folder bind-mounted read-write as the workspace (with `image`): the agent's changes land on the host. */
  mount?: string;
  /** Docker network of a started container (default `none`: no network). */
  network?: string;
  /** Extra `docker run` arguments, e.g. `['--memory', '2g', '--cpus', '1']`. */
  runArgs?: string[];
  /** User the container's commands run as (`docker run --user`). */
  user?: string;
  /** Variables every command sees (besides the image's environment; the host's never reach the container). */
  env?: Record<string, string>;
  /** Default timeout of one command, ms (default 120 000). */
  timeoutMs?: number;
  /** Default cap on a command's stdout + stderr, bytes (default 10 MiB). */
  maxOutputBytes?: number;
  /** Timeout of one file op or docker call, ms (default 60 000); starting a container gets 5 times as long. */
  opTimeoutMs?: number;
  /** The docker CLI (default `docker` on PATH). */
  docker?: string;
  /**
   * Host variables the docker CLI sees (default DOCKER_HOST, DOCKER_CONTEXT, DOCKER_CONFIG, DOCKER_CERT_PATH,
   * DOCKER_TLS_VERIFY, DOCKER_API_VERSION).
   */
  cliEnv?: string[];
  /** Folder names glob walks skip unless the pattern names them (default `['node_modules']`). */
  ignoreDirs?: string[];
  /** Name recorded in the trace (default `docker`). */
  name?: string;
}

/**
 * An env whose workspace is a folder inside a docker container, driven through the docker CLI: `file` ops and
 * `process` ops (`sh -c` commands) run with `docker exec`, so the agent's commands run in the container, not on the
 * host. With `image`, every run gets a fresh container (`docker run`, no network unless `network` says otherwise),
 * removed when the run ends; `reset()` replaces it with a fresh one. With `container`, the env works in a container
 * the user runs. `setup` fails with a clear error when the docker CLI is missing or no engine answers.
 * The image needs `sh` and the usual POSIX tools (`cat`, `stat`, `find`, `mkdir`, `rm`); busybox has them.
 */
export class DockerEnv implements Env {
  readonly name: string;
  readonly workdir: string;
  private readonly cli: DockerCli;
  private readonly target: DockerTarget;
  readonly files: DockerFileOps;
  readonly processes: DockerProcessOps;
  private id: string | undefined;
  private started = false;
  private checked = false;

  constructor(private readonly options: DockerEnvOptions) {
    if (!options || (!options.image && !options.container))
      throw new Error('DockerEnv needs an image or a container: new DockerEnv({ image: "python:3.12-slim" })');
    if (options.image && options.container)
      throw new Error('DockerEnv takes an image (a container per run) or a container (an existing one), not both');
    if (options.container && (options.copyFrom || options.mount || options.network || options.runArgs || options.user))
      throw new Error(
        'DockerEnv: copyFrom, mount, network, runArgs and user apply to a container the env starts (image), not to an existing container',
      );
    const workdir = options.workdir ?? '/workspace';
    if (!path.posix.isAbsolute(workdir) || path.posix.normalize(workdir) !== workdir || workdir === '/')
      throw new Error(`DockerEnv workdir must be an absolute folder other than "/", got ${JSON.stringify(workdir)}`);
    for (const [key, dir] of [
      ['copyFrom', options.copyFrom],
      ['mount', options.mount],
    ] as const) {
      if (dir !== undefined && (!existsSync(dir) || !statSync(dir).isDirectory()))
        throw new Error(`DockerEnv ${key} ${dir} is not a folder`);
    }
    this.workdir = workdir;
    this.name = options.name ?? 'docker';
    this.cli = new DockerCli(options.docker ?? 'docker', options.cliEnv ?? DOCKER_CLI_ENV);
    this.target = {
      cli: this.cli,
      workdir,
      opTimeoutMs: options.opTimeoutMs ?? 60_000,
      container: () => {
        if (!this.id) throw new EnvError(`DockerEnv ${this.name} has no container: it is started by setup()`);
        return this.id;
      },
    };
    this.files = new DockerFileOps(this.target, new Set(options.ignoreDirs ?? ['node_modules']));
    this.processes = new DockerProcessOps(this.target, {
      timeoutMs: options.timeoutMs ?? 120_000,
      maxOutputBytes: options.maxOutputBytes ?? 10 * 1024 * 1024,
      env: options.env ?? {},
    });
  }

  /** The container the env works in (while set up). */
  get container(): string | undefined {
    return this.id;
  }

  /** Checks docker, then starts a fresh container from the image (or checks the given one is running). */
  async setup(_task?: Task): Promise<void> {
    if (!this.checked) {
      await this.cli.check(this.target.opTimeoutMs);
      this.checked = true;
    }
    if (this.options.container) {
      const running = (
        await this.cli.ok(
          ['inspect', '--format', '{{.State.Running}}', this.options.container],
          `cannot use container ${this.options.container}`,
          this.target.opTimeoutMs,
        )
      ).trim();
      if (running !== 'true') throw new EnvError(`DockerEnv: container ${this.options.container} is not running`);
      this.id = this.options.container;
      await this.prepareWorkdir();
      return;
    }
    if (this.id) await this.remove();
    await this.start();
  }

  /** A fresh container from the image: the workspace as it was at setup. An existing container cannot be reset. */
  async reset(): Promise<void> {
    if (this.options.container)
      throw new EnvError(
        `DockerEnv: container ${this.options.container} belongs to the user and cannot be reset; ` +
          `use image to get a fresh container per run`,
      );
    await this.remove();
    await this.start();
  }

  ops<G extends keyof OpGroups>(group: G): OpGroups[G] | undefined;
  ops(group: string): unknown;
  ops(group: string): FileOps | ProcessOps | undefined {
    if (!this.id) return undefined;
    if (group === 'file') return this.files;
    if (group === 'process') return this.processes;
    return undefined;
  }

  /** Removes the container the env started (stops commands still running in a user's container). */
  async close(): Promise<void> {
    if (this.options.container) {
      if (this.id) await this.processes.killAll();
      this.id = undefined;
      return;
    }
    await this.remove();
  }

  private async start(): Promise<void> {
    const o = this.options;
    const name = `qitos-${newId('env').replace(/[^A-Za-z0-9]/g, '')}`;
    const args = [
      'run',
      '--detach',
      '--init',
      '--name',
      name,
      '--label',
      'qitos.env=docker',
      '--network',
      o.network ?? 'none',
      '--workdir',
      this.workdir,
      ...(o.user ? ['--user', o.user] : []),
      ...(o.mount ? ['--volume', `${path.resolve(o.mount)}:${this.workdir}`] : []),
      ...(o.runArgs ?? []),
      // Kept alive by a command that waits forever; the image's entrypoint is not run.
      '--entrypoint',
      'tail',
      o.image!,
      '-f',
      '/dev/null',
    ];
    const out = await this.cli.ok(args, `cannot start a container from image ${o.image}`, this.target.opTimeoutMs * 5);
    this.id = out.trim().split('\n').pop() || name;
    this.started = true;
    await this.prepareWorkdir();
    if (o.copyFrom)
      await this.cli.ok(
        ['cp', `${path.resolve(o.copyFrom)}/.`, `${this.id}:${this.workdir}`],
        `cannot copy ${o.copyFrom} into the container`,
        this.target.opTimeoutMs * 5,
      );
  }

  private async prepareWorkdir(): Promise<void> {
    // Relative to /, so no argument of ours is an absolute path (the paths of every exec are relative to -w).
    const r = await this.cli.run(['exec', '-w', '/', this.id!, 'mkdir', '-p', path.posix.relative('/', this.workdir)], {
      timeoutMs: this.target.opTimeoutMs,
    });
    if (r.exitCode !== 0)
      throw new EnvError(
        `DockerEnv: cannot make the workspace ${this.workdir} in the container: ${firstLines(r.stderr) || `exit ${r.exitCode}`}`,
      );
  }

  private async remove(): Promise<void> {
    if (!this.id || !this.started) return;
    const id = this.id;
    this.id = undefined;
    this.started = false;
    const r = await this.cli.run(['rm', '--force', id], { timeoutMs: this.target.opTimeoutMs });
    if (r.exitCode !== 0 && !/no such container/i.test(r.stderr.toString('utf8')))
      throw new EnvError(`DockerEnv: cannot remove container ${id}: ${firstLines(r.stderr)}`);
  }
}
