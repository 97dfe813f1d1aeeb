/**
 * CLI start and import cost, measured on the INSTALLED package: the sources are packed (`npm pack` builds dist/ in
 * a copy), the tarball is installed with zod into a fresh project, and 100 traces are written there. Then, in
 * interleaved rounds (A B C A B C ...: the machine is shared, so all three see the same load), each of
 *   node -e 0                         the floor: node's own start
 *   node <bin> --help                 `qitos --help`
 *   node <bin> runs traces            `qitos runs` over the 100 traces
 * is started as a fresh process and timed from spawn to exit. Targets: `--help` and `runs` within 2.5x of
 * `node -e 0` (median of the per-round ratios). Then the heap `import 'qitos-ts'` adds (after GC, median of 5
 * processes), target <= 40 MB, and for reference each other entry point's.
 * `--baseline <checkout>` also times `bin/qitos.js` of another checkout (e.g. one from before this package
 * existed, which compiled TypeScript at every start) on the same traces.
 * Run: npm run bench:cli-start [-- --rounds 30] [-- --baseline /path/to/checkout] ; with -- --write, records the
 * figures in docs/performance.md
 * `## CLI start (installed package)`.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageEntries } from '../../test/helpers/package-exports.js';
import { installPackedPackage } from '../../test/helpers/packed-package.js';
import { writePerformanceSection } from './performance-doc.js';

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const ROUNDS = Number(arg('rounds') ?? 20);
const BASELINE = arg('baseline');
const TRACES = 100;
const TARGET_RATIO = 2.5;
const TARGET_HEAP_MB = 40;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** What a baseline checkout is: its commit, and whether its bin compiled the sources with tsx at start. */
function baselineLabel(dir: string): string {
  const commit =
    spawnSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout.trim() ||
    'unknown commit';
  const bin = readFileSync(join(dir, 'bin/qitos.js'), 'utf8');
  return `commit ${commit}${bin.includes('register()') && !bin.includes('dist/') ? ', whose CLI compiled its TypeScript sources with tsx at every start' : ''}`;
}

console.log('packing the sources and installing the tarball into a temporary project ...');
const pkg = await installPackedPackage({ deps: ['zod@^4'] });
try {
  const node = (args: string[], env: NodeJS.ProcessEnv = {}) => {
    const r = spawnSync(process.execPath, args, {
      cwd: pkg.app,
      env: { PATH: process.env.PATH ?? '', ...env },
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    return r.stdout;
  };

  // 100 finished runs, written by the installed package itself.
  node([
    '--input-type=module',
    '-e',
    `import { AgentModule, Engine, baseState, decide } from 'qitos-ts';
     class Echo extends AgentModule { initState(t) { return baseState(t, 2); } decide(s) { return decide.final(s.task); } }
     for (let i = 0; i < ${TRACES}; i++) await new Engine({ agent: new Echo({}) }).run('task ' + i);`,
  ]);
  const listed = JSON.parse(node([pkg.bin, 'runs', 'traces', '--json'])) as unknown[];
  if (listed.length !== TRACES) throw new Error(`expected ${TRACES} runs, qitos runs listed ${listed.length}`);

  const commands: Record<string, string[]> = {
    'node -e 0': ['-e', '0'],
    'qitos --help': [pkg.bin, '--help'],
    [`qitos runs (${TRACES} traces)`]: [pkg.bin, 'runs', 'traces'],
    // for reference: what loading zod alone costs (the reason `qitos runs` lists without it)
    'node -e "import(\'zod\')"': ['--input-type=module', '-e', "await import('zod')"],
  };
  if (BASELINE) {
    commands['baseline: qitos --help'] = [join(BASELINE, 'bin/qitos.js'), '--help'];
    commands[`baseline: qitos runs (${TRACES} traces)`] = [join(BASELINE, 'bin/qitos.js'), 'runs', 'traces'];
  }
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(commands).map((k) => [k, []]));
  for (let round = 0; round <= ROUNDS; round++) {
    for (const [name, args] of Object.entries(commands)) {
      const t = performance.now();
      node(args);
      if (round > 0) times[name].push(performance.now() - t); // round 0 warms the file cache
    }
  }
  const floor = times['node -e 0'];
  const ratio = (name: string) => median(times[name].map((t, i) => t / floor[i]));

  // Heap an import adds, after GC, in a fresh process each time.
  const heapMb = (specifier: string) =>
    median(
      Array.from({ length: 5 }, () =>
        Number(
          node([
            '--expose-gc',
            '--input-type=module',
            '-e',
            `gc(); const a = process.memoryUsage().heapUsed; await import('${specifier}'); gc(); ` +
              `console.log((process.memoryUsage().heapUsed - a) / 1048576);`,
          ]),
        ),
      ),
    );
  const heaps = packageEntries().map((e) => ({ specifier: e.specifier, mb: heapMb(e.specifier) }));
  const rootHeap = heaps[0].mb;

  const verdict = (ok: boolean) => (ok ? 'met' : '**not met**');
  const rows = Object.keys(commands).map((name) => {
    const r = ratio(name);
    const target = name.startsWith('qitos')
      ? `<= ${TARGET_RATIO}x: ${verdict(r <= TARGET_RATIO)}`
      : name === 'node -e 0'
        ? 'the floor'
        : 'reference';
    return `| ${name} | ${median(times[name]).toFixed(0)} ms | ${Math.min(...times[name]).toFixed(0)} ms | ${r.toFixed(2)}x | ${target} |`;
  });
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  const section = [
    '## CLI start (installed package)',
    '',
    '`npm run bench:cli-start` (`benchmarks/perf/cli-start.ts`): the sources packed with `npm pack` and the tarball installed',
    `with zod into a fresh project, ${TRACES} traces written there; then ${ROUNDS} interleaved rounds of fresh processes (after one`,
    'warm-up round), each timed from spawn to exit. The ratio is the median of the per-round ratios to `node -e 0`',
    `of the same round. Measured ${new Date().toISOString().slice(0, 10)}, ` +
      `Node ${process.version}, load average ${load} on the shared 2-core machine.`,
    '',
    '| command | median | best | ratio to `node -e 0` | target |',
    '|---|---|---|---|---|',
    ...rows,
    ...(BASELINE
      ? [
          '',
          `\`baseline:\` rows run \`bin/qitos.js\` of another checkout (${baselineLabel(BASELINE)}) on the same traces.`,
        ]
      : []),
    '',
    `Heap added by an import (after GC, median of 5 processes): \`import ` +
      `'qitos-ts'\` ${rootHeap.toFixed(1)} MB (target <= ${TARGET_HEAP_MB} ` +
      `MB: ${verdict(rootHeap <= TARGET_HEAP_MB)}); ` +
      heaps
        .slice(1)
        .map((h) => `\`${h.specifier.replace('qitos-ts', '')}\` ${h.mb.toFixed(1)}`)
        .join(', ') +
      ' MB.',
    '',
    'Why it is fast: `bin/qitos.js` imports the compiled `dist/cli/main.js` with plain node; `main` loads commander and',
    "the commands' declarations only, and a command's implementation is imported when it runs. `--help` loads no",
    'command, no zod and no TypeScript compiler. `qitos runs` reads the manifests synchronously and checks the fields',
    'it lists by hand (a manifest it cannot take goes to the zod-validated trace reader), so it does not load zod either:',
    `importing zod 4 alone takes ${ratio('node -e "import(\'zod\')"').toFixed(2)}x a bare ` +
      `node start (the row above): most of the 2.5x budget by itself.`,
    'tsx is registered only when a `.ts` module is loaded. The packaging test (`test/packaging/package.test.ts`) checks',
    'those module-loading facts on every run.',
    '',
  ].join('\n');
  writePerformanceSection(section);
} finally {
  await pkg.cleanup();
}
