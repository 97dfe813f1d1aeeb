/** A fake docker CLI in a temp folder (see test/fixtures/docker/docker, a bash script), with its call log and container folders. */
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
  existsSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const SCRIPT = path.resolve(__dirname, '../fixtures/docker/docker');

export interface FakeDocker {
  /** The fake `docker` program to pass as `docker:`. */
  bin: string;
  root: string;
  /** Every call's arguments, in order. */
  calls(): string[][];
  /** The host folder standing for a container's path. */
  hostPath(container: string, p: string): string;
  setEngine(engine: 'up' | 'down'): void;
  cleanup(): void;
}

export function fakeDocker(): FakeDocker {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'qitos-fake-docker-')));
  const binDir = path.join(root, 'bin');
  mkdirSync(binDir);
  const bin = path.join(binDir, 'docker');
  copyFileSync(SCRIPT, bin);
  const log = path.join(root, 'calls.jsonl');
  const conf = (engine: string) =>
    writeFileSync(path.join(binDir, 'fake-docker.env'), `root='${root}'\nlog='${log}'\nengine=${engine}\n`);
  conf('up');
  return {
    bin,
    root,
    // One record per call: arguments each ended by NUL, the record by \x01 and a newline.
    calls: () =>
      existsSync(log)
        ? readFileSync(log, 'utf8')
            .split('\x01\n')
            .filter(Boolean)
            .map((rec) => rec.split('\0').slice(0, -1))
        : [],
    hostPath: (container, p) => path.join(root, 'containers', container, 'fs', p),
    setEngine: conf,
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}
