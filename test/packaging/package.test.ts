import { execFile } from 'node:child_process';
import { cp, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docPointers, isPacked } from '../helpers/doc-pointers.js';
import { packageEntries, REPO } from '../helpers/package-exports.js';
import { installPackedPackage, type InstalledPackage } from '../helpers/packed-package.js';
import { readmeExample } from '../helpers/readme-example.js';

/**
 * The package as a user gets it: packed from the sources (built in its own copy by prepack), installed from the
 * tarball into a fresh ESM project with its peer dependency, then used there: the CLI, TypeScript and JavaScript
 * agent modules, every entry point from ESM and CommonJS, a strict type-check, and the errors of bad input.
 */
const CONSUMER = resolve(__dirname, 'consumer');
const LOAD_LOG = resolve(__dirname, 'load-log.mjs');
const exec = promisify(execFile);
const repoPkg = JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')) as {
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
};

let pkg: InstalledPackage;

beforeAll(async () => {
  pkg = await installPackedPackage({
    deps: [
      `zod@${repoPkg.peerDependencies.zod}`,
      `typescript@${repoPkg.devDependencies.typescript}`,
      'typescript7@npm:typescript@^7', // TypeScript 7, the default `typescript` on npm since 2026 (the native compiler)
      `@types/node@${repoPkg.devDependencies['@types/node']}`,
      'zod3@npm:zod@^3.25', // a project's own older zod, for the zod 3 checks
    ],
  });
  await cp(CONSUMER, pkg.app, { recursive: true });
  await writeFile(join(pkg.app, 'main.ts'), readmeExample(await readFile(join(REPO, 'README.md'), 'utf8')));
}, 900_000);

afterAll(async () => {
  await pkg?.cleanup();
});

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
  /** Module URLs the process loaded (when run with `loads: true`). */
  loaded: string[];
}

/** Runs a command in the consumer project with a small environment. */
async function sh(
  cmd: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; loads?: boolean; timeoutMs?: number; cwd?: string } = {},
): Promise<Ran> {
  const log = join(pkg.root, `loads-${Math.random().toString(36).slice(2)}.txt`);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? pkg.root,
    ...opts.env,
    ...(opts.loads ? { QITOS_LOAD_LOG: log } : {}),
  };
  const argv = opts.loads && cmd === process.execPath ? ['--import', LOAD_LOG, ...args] : args;
  let r: { code: number; stdout: string; stderr: string };
  try {
    const { stdout, stderr } = await exec(cmd, argv, {
      cwd: opts.cwd ?? pkg.app,
      env,
      timeout: opts.timeoutMs ?? 120_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    r = { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    r = { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
  const loaded = opts.loads ? (await readFile(log, 'utf8').catch(() => '')).split('\n').filter(Boolean) : [];
  return { ...r, loaded };
}

/** `qitos …` through the installed bin, with plain node. */
const qitos = (args: string[], opts: { env?: NodeJS.ProcessEnv; loads?: boolean } = {}) =>
  sh(process.execPath, [pkg.bin, ...args], opts);

const fromPackage = (loaded: string[], part: string) => loaded.filter((u) => u.includes(`/node_modules/${part}`));

describe('the packed package, installed into a fresh project', () => {
  it(
    'ships dist (JavaScript, .d.ts, source maps, the templates of qitos init), bin, docs, the ' +
      'example workflows, README and LICENSE, and nothing else',
    () => {
      const top = new Set(pkg.files.map((f) => f.split('/')[0]));
      expect([...top].sort()).toEqual(['LICENSE', 'README.md', 'bin', 'dist', 'docs', 'examples', 'package.json']);
      for (const f of [
        'dist/index.js',
        'dist/index.d.ts',
        'dist/index.js.map',
        'dist/cli/main.js',
        'dist/app/view/viewer.js',
        'dist/app/view/viewer.css',
        'dist/server/board/board.js',
        'dist/server/board/board.css',
        'dist/trace/otel/otlp-worker.js', // loaded by URL (new Worker) from dist/trace/otel/otlp-tap.js
        'bin/qitos.js',
        'docs/api.md',
        'dist/cli/init-templates/agent.ts.tmpl',
        'examples/workflows/tool-pipeline.yaml',
      ]) {
        expect(pkg.files, f).toContain(f);
      }
      expect(
        pkg.files.filter(
          (f) =>
            f.startsWith('dist/') &&
            !/\.(js|d\.ts|js\.map|css)$/.test(f) &&
            !/^dist\/cli\/init-templates\/[\w/.-]+\.tmpl$/.test(f),
        ),
      ).toEqual([]);
      expect(pkg.files.filter((f) => f.startsWith('examples/') && !f.startsWith('examples/workflows/'))).toEqual([]);
      expect(
        pkg.files.filter(
          (f) =>
            (/(^|\/)(test|tests|fixtures|traces|benchmarks|src)\//.test(f) &&
              !f.startsWith('dist/cli/init-templates/')) ||
            /\.tsbuildinfo$/.test(f),
        ),
      ).toEqual([]);
      for (const e of packageEntries()) {
        expect(pkg.files, e.key).toContain(e.default.slice(2));
        expect(pkg.files, e.key).toContain(e.types.slice(2));
      }
    },
  );

  it('npx qitos --help runs the compiled CLI with plain node, loading no command, no zod and no tsx', async () => {
    const npx = await sh('npx', ['--no-install', 'qitos', '--help']);
    expect(npx.code, npx.stderr).toBe(0);
    for (const c of ['run', 'replay', 'diff', 'view', 'fork', 'runs', 'inspect', 'bench', 'skills'])
      expect(npx.stdout).toMatch(new RegExp(`^  ${c} `, 'm'));
    const help = await qitos(['--help'], { loads: true });
    expect(help.stdout).toBe(npx.stdout);
    expect(help.loaded.some((u) => u.endsWith('/node_modules/qitos-ts/dist/cli/main.js'))).toBe(true);
    expect(help.loaded.filter((u) => /-action\.js$/.test(u))).toEqual([]);
    expect(fromPackage(help.loaded, 'zod/')).toEqual([]);
    expect(fromPackage(help.loaded, 'tsx/')).toEqual([]);
    expect(help.loaded.filter((u) => u.endsWith('.ts'))).toEqual([]);
    expect((await qitos(['--version'])).stdout.trim()).toBe(
      JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')).version,
    );
  });

  it('qitos run loads a .js agent module with plain node and a .ts one through tsx; the trace replays and lists', async () => {
    const js = await qitos(['run', 'agent.js', '-t', 'hi', '--json'], { loads: true });
    expect(js.stderr).toBe('');
    expect(JSON.parse(js.stdout)).toMatchObject({ stopReason: 'final', finalResult: 'echo hi' });
    expect(fromPackage(js.loaded, 'tsx/')).toEqual([]);
    expect(js.loaded.filter((u) => u.endsWith('-action.js')).map((u) => u.split('/').pop())).toEqual(['run-action.js']);

    const ts = await qitos(['run', 'agent.ts', '-t', 'What is 17 * 23?', '-m', 'scripted:replies.json', '--json'], {
      loads: true,
    });
    expect(ts.stderr).toBe('');
    const result = JSON.parse(ts.stdout);
    expect(result).toMatchObject({ stopReason: 'final', finalResult: '391', steps: 2 });
    expect(fromPackage(ts.loaded, 'tsx/').length).toBeGreaterThan(0);
    // The agent's `import 'qitos-ts'` and the CLI share one copy of the package (the same Engine, the same zod).
    expect(ts.loaded.filter((u) => u.includes('/qitos-ts/dist/engine/engine.js'))).toHaveLength(1);
    expect(ts.loaded.filter((u) => /\/node_modules\/zod\/v4\/classic\/schemas\.js/.test(u))).toHaveLength(1);

    const replay = await qitos(['replay', result.traceDir, '--json']);
    expect(replay.code, replay.stderr).toBe(0);
    expect(JSON.parse(replay.stdout).matched).toBe(true);

    // Listing runs reads the manifests without loading zod (see docs/performance.md, CLI start).
    const runs = await qitos(['runs', '--json'], { loads: true });
    expect(runs.code, runs.stderr).toBe(0);
    expect((JSON.parse(runs.stdout) as Array<{ runId: string }>).map((r) => r.runId)).toContain(result.runId);
    expect(fromPackage(runs.loaded, 'zod/')).toEqual([]);
  });

  it('qitos debug runs a TypeScript agent under the step debugger from piped commands, from the installed package', async () => {
    const { spawnSync } = await import('node:child_process');
    const r = spawnSync(
      process.execPath,
      [pkg.bin, 'debug', 'agent.ts', '--task', 'What is 17 * 23?', '-m', 'scripted:replies.json'],
      {
        cwd: pkg.app,
        env: { PATH: process.env.PATH ?? '', HOME: pkg.root },
        input: 'break tool calculate\ncontinue\nshow decision\ncontinue\n',
        encoding: 'utf8',
        timeout: 120_000,
      },
    );
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/stopped at step 1, before act: breakpoint 1 \(tool calculate\)/);
    expect(r.stdout).toContain('(qdb) show decision\ndecision:\n  1. calculate {"expression":"17 * 23"}');
    expect(r.stdout).toMatch(/^final: +391$/m);
  });

  it('qitos bench run loads a suite whose agent and custom scorer are TypeScript modules', async () => {
    const r = await qitos(['bench', 'run', 'suite', '-o', 'bench-out', '--no-progress', '--json'], { loads: true });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ suite: 'shout', trials: 3, passRate: { passed: 3, total: 3 } });
    expect(fromPackage(r.loaded, 'tsx/').length).toBeGreaterThan(0);
  });

  it(
    "npx qitos init demo writes a project that installs offline (the tarball, npm's cache), " +
      'passes npm test, and runs qitos run and qitos bench run offline',
    async () => {
      const demo = join(pkg.root, 'demo'); // beside the consumer project, so it resolves only what it installs itself
      const init = await sh('npx', ['--no-install', 'qitos', 'init', demo]);
      expect(init.code, init.stderr).toBe(0);
      expect(init.stdout).toMatch(/^ {2}agent\.ts$/m);
      expect(init.stdout).toMatch(/^ {2}suite\/scorer\.ts$/m);
      const pkgJson = JSON.parse(await readFile(join(demo, 'package.json'), 'utf8'));
      expect(pkgJson.dependencies['qitos-ts']).toBe(
        `^${JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')).version}`,
      );

      // Its dependencies come from the tarball and npm's cache only: nothing from the network.
      const install = await sh(
        'npm',
        ['install', '--offline', '--no-save', '--no-audit', '--no-fund', '--loglevel=error', pkg.tarball],
        { cwd: demo, timeoutMs: 600_000 },
      );
      expect(install.code, install.stderr).toBe(0);

      const test = await sh('npm', ['test'], { cwd: demo });
      expect(test.code, `${test.stdout}${test.stderr}`).toBe(0);
      expect(test.stdout).toMatch(/^ℹ pass 2$/m);
      expect(test.stdout).toMatch(/^ℹ fail 0$/m);

      const script = await sh('npm', ['run', 'run'], { cwd: demo });
      expect(script.code, script.stderr).toBe(0);
      expect(script.stdout).toMatch(/^ +1 {2}count_letter\(text="strawberry", letter="r"\) -> 3 /m);
      expect(script.stdout).toMatch(/^final: {2}3$/m);

      const run = await sh(
        'npx',
        [
          '--no-install',
          'qitos',
          'run',
          'agent.ts',
          '-c',
          'qitos.yaml',
          '--json',
          '-t',
          'How many times does the letter "s" appear in "Mississippi"?',
        ],
        { cwd: demo },
      );
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ stopReason: 'final', finalResult: '4', steps: 2 });

      const bench = await sh(
        'npx',
        ['--no-install', 'qitos', 'bench', 'run', 'suite', '-c', 'qitos.yaml', '-o', 'out', '--no-progress', '--json'],
        { cwd: demo },
      );
      expect(bench.code, bench.stderr).toBe(0);
      expect(JSON.parse(bench.stdout)).toMatchObject({ suite: 'letter-count', passRate: { passed: 5, total: 5 } });
    },
    900_000,
  );

  it('the shipped docs point only at files the package holds; its example workflow runs from node_modules offline', async () => {
    const missing: string[] = [];
    for (const f of pkg.files.filter((f) => f.endsWith('.md')))
      for (const p of docPointers(f, await readFile(join(pkg.app, 'node_modules/qitos-ts', f), 'utf8')))
        if (!/^benchmarks\/?($|(perf|peers)(\/|$))/.test(p) && !isPacked(p, pkg.files)) missing.push(`${f}: ${p}`);
    expect(missing).toEqual([]);

    const flows = 'node_modules/qitos-ts/examples/workflows';
    const r = await sh(process.execPath, [
      pkg.bin,
      'workflow',
      'run',
      `${flows}/tool-pipeline.yaml`,
      '--var',
      'n=7',
      '--model',
      `scripted:${flows}/tool-pipeline.replies.json`,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^result: 7 doubled to 112/m);
  });

  it('qitos board serves the runs and the bench folder left above: its page, its script, the viewer and the report', async () => {
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [pkg.bin, 'board', 'traces', 'bench-out', '--port', '0', '--no-cache'], {
      cwd: pkg.app,
      env: { PATH: process.env.PATH ?? '', HOME: pkg.root },
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (out += d));
    try {
      const url = await new Promise<string>((res, rej) => {
        const t = setInterval(() => {
          const m = /listening on (http:\/\/127\.0\.0\.1:\d+)\/ .*\n.*\n/.exec(out);
          if (m || child.exitCode !== null) clearInterval(t);
          if (m) res(m[1]);
          else if (child.exitCode !== null) rej(new Error(`qitos board exited: ${out}`));
        }, 20);
      });
      expect(await (await fetch(`${url}/`)).text()).toContain('<script src="/board.js"></script>');
      expect(await (await fetch(`${url}/board.js`)).text()).toContain('/api/runs?since=');
      const list = (await (await fetch(`${url}/api/runs`)).json()) as {
        rows: Array<{ id: string; runId: string }>;
        benches: Array<{ id: string; trials: number }>;
      };
      expect(list.benches).toMatchObject([{ id: '1/', trials: 3 }]);
      const run = list.rows.find((r) => r.id.startsWith('0/'))!;
      expect(await (await fetch(`${url}/view?run=${encodeURIComponent(run.id)}`)).text()).toContain(
        `<title>qitos run ${run.runId}</title>`,
      );
      expect(await (await fetch(`${url}/bench-report?id=1%2F`)).text()).toContain('<h1>qitos bench report</h1>');
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('an ESM consumer imports every entry point (exactly the pinned exports) and runs an Engine offline', async () => {
    const r = await sh(process.execPath, ['all-subpaths.mjs']);
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout) as { exports: Record<string, string[]>; run: unknown };
    const pinned = JSON.parse(await readFile(resolve(__dirname, 'public-api.json'), 'utf8')) as Record<
      string,
      { values: string[] }
    >;
    expect(out.exports).toEqual(Object.fromEntries(Object.entries(pinned).map(([k, v]) => [k, v.values])));
    expect(out.run).toEqual({ stopReason: 'final', finalResult: '42', steps: 2 });
  });

  it('two installed copies: each recognises the errors of the other with isInstance, and RECOVER reads them', async () => {
    const r = await sh(process.execPath, ['two-copies.mjs']);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({
      copies: true,
      instanceOf: [false, false],
      isInstance: [true, true, true, true],
      otherClass: [false, false],
      kind: 'trace',
      // The parse error of the agent's own copy is fed back to the model, which then answers.
      run: {
        stopReason: 'final',
        finalResult: '42',
        failures: [{ step: 1, kind: 'parse', message: expect.stringContaining('No JSON'), fatal: false }],
      },
    });
  });

  it("import 'qitos-ts' loads no replay, diff or OpenTelemetry module, nor the diff or @opentelemetry packages; qitos-ts/trace does", async () => {
    const load = (spec: string) =>
      sh(process.execPath, ['--input-type=module', '-e', `await import('${spec}')`], { loads: true });
    const ofTrace = (r: Ran) =>
      r.loaded.filter((u) => u.includes('/node_modules/qitos-ts/dist/trace/')).map((u) => u.split('/dist/')[1]!);
    const notForRunning = (r: Ran) => [
      ...ofTrace(r).filter((f) => /^trace\/(index\.js|replay-|trace-diff|text-diff|trace-texts|otel\/)/.test(f)),
      ...fromPackage(r.loaded, 'diff/'),
      ...fromPackage(r.loaded, '@opentelemetry/'),
    ];
    const root = await load('qitos-ts');
    expect(root.code, root.stderr).toBe(0);
    expect(ofTrace(root)).toContain('trace/run-recorder.js'); // what a run records with
    expect(notForRunning(root)).toEqual([]);

    const trace = await load('qitos-ts/trace');
    expect(trace.code, trace.stderr).toBe(0);
    const loaded = notForRunning(trace).join('\n');
    for (const part of [
      'trace/replay-model.js',
      'trace/trace-diff.js',
      'trace/otel/otlp-tap.js',
      '/node_modules/diff/',
    ])
      expect(loaded).toContain(part);
  });

  it('reads a command line with the bash grammar shipped in its dependencies (the WASM files are found installed)', async () => {
    await writeFile(
      join(pkg.app, 'judge-command.mjs'),
      "import { HostEnv } from 'qitos-ts/envs';\n" +
        'const env = new HostEnv({ root: process.cwd() });\n' +
        "const found = await env.ops('process').commands('X=1 \\\\rm \"$(git  push)\" 2>/dev/null');\n" +
        'console.log(JSON.stringify(found.map((c) => c.text)));\n',
    );
    const r = await sh(process.execPath, ['judge-command.mjs']);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual(['rm $(git  push) 2> /dev/null', 'git push']);
  });

  it("the README's example runs as written (npx tsx)", async () => {
    const r = await sh('npx', ['--no-install', 'tsx', 'main.ts']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^final 42 \[ 'add -> 42', 'add' \] .*traces/);
  });

  it(
    'the .d.ts files type-check in a strict consumer (noUncheckedIndexedAccess, ' +
      'exactOptionalPropertyTypes, no skipLibCheck) under TypeScript 5.9 and 7, nodenext and ' +
      'bundler, with and without types: ["node"]',
    async () => {
      const tsc5 = join(pkg.app, 'node_modules/typescript/bin/tsc');
      const tsc7 = join(pkg.app, 'node_modules/typescript7/bin/tsc');
      expect((await sh(process.execPath, [tsc7, '--version'])).stdout).toMatch(/^Version 7\./);
      const runs = [
        ['5.9', tsc5, 'nodenext'],
        ['5.9', tsc5, 'bundler'],
        ['5.9', tsc5, 'notypes'],
        ['7', tsc7, 'nodenext'],
        ['7', tsc7, 'notypes'],
      ] as const;
      const results = await Promise.all(
        runs.map(([, tsc, c]) => sh(process.execPath, [tsc, '-p', `tsconfig.${c}.json`], { timeoutMs: 500_000 })),
      );
      expect(
        runs.map(([v, , c], i) =>
          `TypeScript ${v} ${c}: exit ${results[i]!.code} ${results[i]!.stdout}${results[i]!.stderr}`.trim(),
        ),
      ).toEqual(runs.map(([v, , c]) => `TypeScript ${v} ${c}: exit 0`));
    },
    600_000,
  );

  it("no shipped .d.ts names the NodeJS namespace, and each that uses Node's types references them", async () => {
    const bad: string[] = [];
    for (const f of pkg.files.filter((f) => f.endsWith('.d.ts'))) {
      const text = await readFile(join(pkg.app, 'node_modules/qitos-ts', f), 'utf8');
      if (/\bNodeJS\./.test(text)) bad.push(`${f}: names the NodeJS namespace`);
      if (/from ['"]node:|import\(['"]node:|\bBuffer\b/.test(text) && !text.includes('/// <reference types="node"'))
        bad.push(`${f}: uses Node's types without /// <reference types="node" preserve="true" />`);
    }
    expect(bad).toEqual([]);
  });

  it("require('qitos-ts') from CommonJS loads the ES module (Node >= 22.12, the engines range)", async () => {
    const r = await sh(process.execPath, ['require.cjs']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ Engine: 'function', AgentModule: 'function', ScriptedModel: 'function' });
  });

  describe('bad input: one line, exit 2, the stack only with QITOS_DEBUG=1', () => {
    const oneLine = (r: Ran, re: RegExp) => {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(re);
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    };

    it('a module that does not exist, exports no AgentModule, or does not compile (file:line:col)', async () => {
      oneLine(await qitos(['run', 'nope.ts', '-t', 'x']), /^qitos: agent module not found: nope\.ts$/m);
      oneLine(
        await qitos(['run', 'no-agent.ts', '-t', 'x']),
        /^qitos: agent module no-agent\.ts exports no AgentModule subclass/,
      );
      oneLine(
        await qitos(['run', 'broken.ts', '-t', 'x']),
        new RegExp(
          `^qitos: cannot load agent module broken\\.ts: ${pkg.app}/broken\\.ts:5:26: ERROR: Expected "\\)" but found "2"$`,
          'm',
        ),
      );
      oneLine(
        await qitos(['run', 'broken.js', '-t', 'x']),
        new RegExp(
          `^qitos: cannot load agent module broken\\.js: ${pkg.app}/broken\\.js:7:1: SyntaxError: Unexpected token '\\}'$`,
          'm',
        ),
      );
      const debug = await qitos(['run', 'broken.ts', '-t', 'x'], { env: { QITOS_DEBUG: '1' } });
      expect(debug.code).toBe(2);
      expect(debug.stderr).toMatch(/\n\s+at /);
    });

    it('an unknown qitos-ts subpath names the ones there are', async () => {
      const names = packageEntries()
        .map((e) => e.specifier)
        .join(', ');
      oneLine(
        await qitos(['run', 'bad-subpath.ts', '-t', 'x']),
        new RegExp(
          `^qitos: cannot load agent module bad-subpath\\.ts: qitos-ts has no subpath ` +
            `"qitos-ts/engine" \\(it has ${names.replace(/\//g, '\\/')}\\)$`,
          'm',
        ),
      );
    });

    it('zod missing, or zod 3 where qitos-ts needs zod 4: the CLI says which; defineTool names a zod 3 schema', async () => {
      const zod = join(pkg.app, 'node_modules/zod');
      const away = join(pkg.app, 'node_modules/zod-away');
      await rename(zod, away);
      try {
        oneLine(
          await qitos(['run', 'agent.js', '-t', 'x']),
          /^qitos: missing peer dependency zod: install it next to qitos-ts \(npm install zod@\^4\.0\.0\)$/m,
        );
        for (const args of [['--help'], ['runs']]) expect((await qitos(args)).code, args[0]).toBe(0); // neither loads zod
        await symlink(join(pkg.app, 'node_modules/zod3'), zod);
        const v3 = JSON.parse(await readFile(join(pkg.app, 'node_modules/zod3/package.json'), 'utf8'))
          .version as string;
        oneLine(
          await qitos(['run', 'agent.js', '-t', 'x']),
          new RegExp(
            `^qitos: qitos-ts needs zod \\^4\\.0\\.0 \\(a peer dependency\\), but ` +
              `zod ${v3.replace(/\./g, '\\.')} is installed \\(.*node_modules/zod3?/package\\.json\\): ` +
              `npm install zod@\\^4\\.0\\.0$`,
            'm',
          ),
        );
        // A library user whose package manager let zod 3 in: every entry point refuses to load, naming the fix.
        const imports = await sh(process.execPath, [
          '--input-type=module',
          '-e',
          `for (const s of ${JSON.stringify(packageEntries().map((e) => e.specifier))}) { try { ` +
            `await import(s); console.log(s, 'loaded'); } catch (e) { console.log(s, e.message); } }`,
        ]);
        expect(imports.stdout.trim().split('\n')).toEqual(
          packageEntries().map(
            (e) =>
              `${e.specifier} qitos-ts needs zod ^4.0.0 (a peer dependency), but the zod it imports is ` +
              `older (it has no z.toJSONSchema, as zod 3): npm install zod@^4`,
          ),
        );
      } finally {
        await rm(zod, { force: true, recursive: false }).catch(() => undefined);
        await rename(away, zod);
      }
      const tool = await sh(process.execPath, ['zod3-tool.mjs']);
      expect(tool.code).toBe(1);
      expect(tool.stderr).toMatch(
        /TypeError: defineTool\("old"\): parameters is a zod 3 schema; qitos-ts needs zod \^4/,
      );
    });
  });
});
