/**
 * Import cost of the root entry point: how long `import 'qitos-ts'` takes in a fresh Node process, and which modules
 * it loads. The package is compiled from this checkout's sources (scripts/build.mjs in a temporary copy, the
 * checkout's node_modules linked in) and, with `--baseline <git revision>`, from that revision too (`git archive`),
 * so both are measured in the same interleaved rounds on the same machine: each round starts, as fresh processes,
 * `node -e 0` (the floor) and one `await import(<dist>/index.js)` per build (and `qitos-ts/trace` of this checkout,
 * for reference). A process reports its import's own time (performance.now() around the import) and is timed from
 * spawn to exit; figures are medians over the rounds, after one warm-up round. The modules are counted once per build
 * with test/packaging/load-log.mjs (a loader hook that records every URL), outside the timed runs.
 * Run on Node 24: scripts/with-node.sh 24 npm run bench:import [-- --rounds 40] [-- --baseline main] [-- --write]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO } from '../../test/helpers/package-exports.js';
import { writePerformanceSection } from './performance-doc.js';

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const ROUNDS = Number(arg('rounds') ?? 30);
const BASELINE = arg('baseline');
/** What scripts/build.mjs reads. */
const BUILD_INPUTS = ['src', 'scripts', 'package.json', 'tsconfig.json', 'tsconfig.build.json'];
const LOAD_LOG = join(REPO, 'test/packaging/load-log.mjs');

interface Timing {
  importCpuMs: number;
  importMs: number;
  wallMs: number;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Compiles a copy of the sources (this checkout's, or `revision`'s) into `<dir>/dist`; returns `dir`. */
function build(root: string, revision?: string): string {
  const dir = join(root, revision ? 'baseline' : 'current');
  mkdirSync(dir);
  if (revision) {
    const tar = execFileSync('git', ['-C', REPO, 'archive', revision, ...BUILD_INPUTS], { maxBuffer: 1 << 30 });
    execFileSync('tar', ['-x', '-C', dir], { input: tar });
  } else {
    for (const f of BUILD_INPUTS) cpSync(join(REPO, f), join(dir, f), { recursive: true });
  }
  symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'));
  execFileSync(process.execPath, [join(dir, 'scripts/build.mjs')], { cwd: dir, stdio: 'inherit' });
  return dir;
}

/**
 * A fresh node process (in `cwd`) that imports `spec`: the import's CPU time (user + system, all the process's
 * threads) and wall time as the process measures them, and the process's wall time from spawn to exit (ms).
 */
function timedImport(spec: string, cwd: string): Timing {
  const t = performance.now();
  const r = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const c = process.cpuUsage(); const t = performance.now(); await import(${JSON.stringify(spec)}); ` +
        'const wall = performance.now() - t; const u = process.cpuUsage(c); ' +
        'console.log(JSON.stringify({ wall, cpu: (u.user + u.system) / 1000 }));',
    ],
    { cwd, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } },
  );
  const wallMs = performance.now() - t;
  if (r.status !== 0) throw new Error(`importing ${spec} failed: ${r.stderr}`);
  const own = JSON.parse(r.stdout) as { wall: number; cpu: number };
  return { importCpuMs: own.cpu, importMs: own.wall, wallMs };
}

/** The modules importing `spec` (from `dir`) loads, by where they come from: the package (its `trace/` part), each dependency. */
function modulesLoaded(dir: string, spec: string): { total: number; ours: number; trace: number; packages: string } {
  const log = join(dir, 'loads.txt');
  rmSync(log, { force: true });
  execFileSync(
    process.execPath,
    ['--import', LOAD_LOG, '--input-type=module', '-e', `await import(${JSON.stringify(spec)})`],
    { cwd: dir, env: { PATH: process.env.PATH ?? '', QITOS_LOAD_LOG: log } },
  );
  const urls = readFileSync(log, 'utf8').split('\n').filter(Boolean);
  const ours = urls.filter((u) => u.includes(`${pathToFileURL(dir).href}/dist/`));
  const byPackage = new Map<string, number>();
  for (const u of urls) {
    const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(u);
    if (m) byPackage.set(m[1], (byPackage.get(m[1]) ?? 0) + 1);
  }
  return {
    total: urls.length,
    ours: ours.length,
    trace: ours.filter((u) => u.includes('/dist/trace/')).length,
    packages:
      [...byPackage]
        .sort()
        .map(([p, n]) => `${p} ${n}`)
        .join(', ') || 'none',
  };
}

const root = mkdtempSync(join(tmpdir(), 'qitos-import-bench-'));
try {
  console.log('compiling this checkout' + (BASELINE ? ` and ${BASELINE}` : '') + ' ...');
  const current = build(root);
  const baseline = BASELINE ? build(root, BASELINE) : undefined;
  const short = BASELINE
    ? execFileSync('git', ['-C', REPO, 'rev-parse', '--short', BASELINE], { encoding: 'utf8' }).trim()
    : '';
  const baselineLabel = !BASELINE ? '' : short.startsWith(BASELINE) ? short : `${BASELINE} (${short})`;

  const fileUrl = (dir: string, file: string) => pathToFileURL(join(dir, file)).href;
  const rows: Array<{ name: string; dir?: string; spec?: string }> = [
    { name: '`node -e 0`' },
    { name: "`import 'qitos-ts'`, this checkout", dir: current, spec: fileUrl(current, 'dist/index.js') },
    ...(baseline
      ? [{ name: `\`import 'qitos-ts'\`, ${baselineLabel}`, dir: baseline, spec: fileUrl(baseline, 'dist/index.js') }]
      : []),
    { name: "`import 'qitos-ts/trace'`, this checkout", dir: current, spec: fileUrl(current, 'dist/trace/index.js') },
    { name: "`import 'zod'` alone, for reference", dir: current, spec: 'zod' },
  ];
  const times: Timing[][] = rows.map(() => []);
  for (let round = 0; round <= ROUNDS; round++) {
    rows.forEach((row, i) => {
      let t: Timing;
      if (row.spec) t = timedImport(row.spec, row.dir!);
      else {
        const start = performance.now();
        execFileSync(process.execPath, ['-e', '0']);
        t = { importCpuMs: NaN, importMs: NaN, wallMs: performance.now() - start };
      }
      if (round > 0) times[i].push(t); // round 0 warms the file cache
    });
  }
  const med = (i: number, key: keyof Timing) => median(times[i].map((t) => t[key]));
  const ms = (x: number) => (Number.isNaN(x) ? '-' : `${x.toFixed(0)} ms`);

  const table = rows.map((row, i) => {
    const m = row.dir && row.spec ? modulesLoaded(row.dir, row.spec) : undefined;
    const loaded = m
      ? `${m.total}: ${m.ours ? `${m.ours} of the package (${m.trace} of them \`trace/\`); ` : ''}${m.packages}`
      : '-';
    return `| ${row.name} | ${ms(med(i, 'importCpuMs'))} | ${ms(med(i, 'importMs'))} | ${ms(med(i, 'wallMs'))} | ${loaded} |`;
  });
  // This checkout against the baseline, round by round (both saw the same load): the median of the ratios.
  const change = baseline
    ? (key: keyof Timing) => {
        const ratio = median(times[1].map((t, r) => t[key] / times[2][r][key]));
        return `${ratio < 1 ? '' : '+'}${((ratio - 1) * 100).toFixed(0)}%`;
      }
    : undefined;
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  const section = [
    '## Import of `qitos-ts`',
    '',
    '`npm run bench:import` (`benchmarks/perf/import-root.ts`): the package compiled from the sources into a temporary',
    `folder${BASELINE ? ` (and from ${baselineLabel} the same way)` : ''}; ${ROUNDS} interleaved rounds of fresh processes after one`,
    'warm-up round, medians. "import CPU" and "import wall" are measured inside the process around the',
    '`await import(...)` (CPU: user + system time of all its threads, the figure that holds on a loaded machine);',
    '"process" is spawn to exit. Modules: every URL the import loads (test/packaging/load-log.mjs), built-ins included.',
    `Measured ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, load average ${load} on the shared 2-core machine.`,
    '',
    '| what | import CPU | import wall | process | modules loaded |',
    '|---|---|---|---|---|',
    ...table,
    ...(change
      ? [
          '',
          `This checkout against ${baselineLabel}, as the median of the per-round ratios: import CPU ${change('importCpuMs')}, ` +
            `import wall ${change('importMs')}, process ${change('wallMs')}.`,
        ]
      : []),
    '',
    'What the root loads is what running an agent needs: the kernel, the engine, and of `src/trace` the recording',
    'half (writer, recorder, state differ, hashing). Replay, diff and OpenTelemetry export, and the `diff` package, load',
    'with `qitos-ts/trace` (docs/api.md, "What importing an entry point loads"; the packaging test checks it). zod 4',
    'is most of what remains.',
    '',
  ].join('\n');
  writePerformanceSection(section);
} finally {
  rmSync(root, { recursive: true, force: true });
}
