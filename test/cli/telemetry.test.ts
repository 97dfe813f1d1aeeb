import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readManifest } from '../../src/trace/index.js';
import { CALC_AGENT, CALC_SCRIPT, qitos, recordCalcRun, tempDir } from '../helpers/cli-harness.js';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});
async function setup(): Promise<{ dir: string; r: OtlpReceiver }> {
  const { dir, cleanup } = await tempDir();
  const r = await startOtlpReceiver();
  cleanups.push(cleanup, () => r.close());
  return { dir, r };
}
const runArgs = ['run', CALC_AGENT, '--task', 'What is 17 * 23?', '--model', `scripted:${CALC_SCRIPT}`, '--json'];
const names = (r: OtlpReceiver) => r.spans.map((s) => s.name).sort();
const EXPECTED = [`chat ${CALC_SCRIPT}`, `chat ${CALC_SCRIPT}`, 'execute_tool calc', 'invoke_agent CalcAgent'];

describe('qitos telemetry (OpenTelemetry export from the CLI)', () => {
  it('qitos run --otel <endpoint> exports the run as GenAI spans before it exits', async () => {
    const { dir, r } = await setup();
    const run = await qitos([...runArgs, '--otel', r.url], dir);
    expect(run.code, run.err).toBe(0);
    expect(names(r)).toEqual(EXPECTED);
    expect(r.spans.find((s) => s.name.startsWith('invoke_agent'))!.attributes['qitos.stop_reason']).toEqual({
      stringValue: 'final',
    });
  });

  it(
    "the config's telemetry: section and the OTEL_EXPORTER_OTLP_* variables turn it on; its " +
      'headers reach the collector and stay out of the trace',
    async () => {
      const { dir, r } = await setup();
      await writeFile(
        join(dir, 'qitos.yaml'),
        `telemetry:\n  endpoint: ${r.url}\n  protocol: http/json\n  headers:\n    x-api-key: otel-secret-key-123456\n`,
      );
      const run = await qitos([...runArgs, '--config', 'qitos.yaml'], dir);
      expect(run.code, run.err).toBe(0);
      expect(names(r)).toEqual(EXPECTED);
      expect(r.requests[0]!.contentType).toBe('application/json');
      expect(r.requests[0]!.headers['x-api-key']).toBe('otel-secret-key-123456');
      const traceDir = JSON.parse(run.out).traceDir as string;
      const manifest = await readManifest(traceDir);
      expect(JSON.stringify(manifest)).not.toContain('otel-secret-key-123456');
      expect(manifest.config).not.toHaveProperty('telemetry');

      const byEnv = await setup();
      const run2 = await qitos(runArgs, byEnv.dir, { OTEL_EXPORTER_OTLP_ENDPOINT: byEnv.r.url });
      expect(run2.code, run2.err).toBe(0);
      expect(names(byEnv.r)).toEqual(EXPECTED);
    },
  );

  it('an unreachable collector does not fail the run: one stderr line says so', async () => {
    const { dir } = await setup();
    const port = await closedPort();
    const run = await qitos([...runArgs, '--otel', `http://127.0.0.1:${port}`], dir);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.out).stopReason).toBe('final');
    const lines = run.err.split('\n').filter((l) => l.includes('OpenTelemetry'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`http://127.0.0.1:${port}/v1/traces`);
  });

  it('qitos trace export <trace> --otlp sends a recorded run as the same spans, with its recorded times', async () => {
    const { dir, r } = await setup();
    const { traceDir } = await recordCalcRun(dir);
    const out = await qitos(['trace', 'export', traceDir, '--otlp', r.url], dir);
    expect(out.code, out.err).toBe(0);
    expect(out.out).toContain(`exported 1 run to ${r.url}/v1/traces`);
    expect(names(r)).toEqual(EXPECTED);
    const manifest = await readManifest(traceDir);
    const root = r.spans.find((s) => s.name.startsWith('invoke_agent'))!;
    expect(Number(BigInt(root.startTimeUnixNano) / 1_000_000n)).toBe(Date.parse(manifest.createdAt));
  });

  it('qitos trace export to an unreachable collector exits 1 with one line; a folder that is not a trace is named', async () => {
    const { dir } = await setup();
    const { traceDir } = await recordCalcRun(dir);
    const port = await closedPort();
    const down = await qitos(['trace', 'export', traceDir, '--otlp', `http://127.0.0.1:${port}`], dir);
    expect(down.code).toBe(1);
    expect(down.err.trim().split('\n')).toHaveLength(1);
    const bad = await qitos(['trace', 'export', join(dir, 'nope'), '--otlp', 'http://127.0.0.1:1'], dir);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('nope');
    const badUrl = await qitos([...runArgs, '--otel', 'ftp://x'], dir);
    expect(badUrl.code).toBe(2);
    expect(badUrl.err).toContain('--otel');
  });
});

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
