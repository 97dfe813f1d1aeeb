import { readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { Hono } from 'hono';
import { benchReportData } from '../../bench/report-data.js';
import { readTrace, TraceError, type Trace } from '../../trace/index.js';
import { benchReportHtml } from '../../app/bench-report/report-html.js';
import { HttpError, invalidRequest } from '../openai-error.js';
import type { LocalServerGuard } from '../local-server-guard.js';
import { branchTraces } from '../../app/view/branch-traces.js';
import { viewData } from '../../app/view/view-data.js';
import { viewHtml } from '../../app/view/view-html.js';
import { isWorkflowManifest } from '../../kit/workflow/index.js';
import { boardAuth } from './board-auth.js';
import { benchResults } from './board-bench.js';
import type { BoardIndex } from './board-index.js';
import { boardHtml } from './board-html.js';
import { folderOutsideRoot } from './folder-jail.js';

/** What the board app serves. */
export interface BoardAppOptions {
  index: BoardIndex;
  /** Token every request must carry (header or cookie, see boardAuth); undefined for none (loopback only). */
  token?: string;
  /** The Host/Origin rule of `qitos serve` (403 otherwise); startBoard always sets one. */
  guard?: LocalServerGuard;
  /** A refresh of the index is done at most this often, however many clients poll (default 1000 ms). */
  refreshMs?: number;
  /** How often the page asks for changes, in ms (default 2000). */
  pollMs?: number;
}

/** How often a running run's viewer page reloads itself, in seconds. */
const VIEW_REFRESH_S = 2;

/** The viewer's own policy (no network at all), which the board serves it with; no other site may frame it. */
const VIEW_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; frame-ancestors 'self'";
/** The bench report has no script at all. */
const REPORT_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'self'";
/** The board page: its script and style from the board, requests to the board only, frames of the board only. */
const BOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; frame-src " +
  "'self'; img-src data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * The `qitos board` web app: the page, the run listing (`/api/runs`, everything or what changed since a version),
 * a bench folder's results (`/api/bench`), a run in the viewer of `qitos view` (`/view?run=`, two runs side by side
 * with `&b=`), and the bench report of `qitos bench report` (`/bench-report?id=`, several ids compared). A run or a
 * bench folder is named by its id in the index, never by a path: an id the index does not hold is a 404, so a URL
 * cannot pick a file outside the board's folders.
 */
export function createBoardApp(options: BoardAppOptions): Hono {
  const { index } = options;
  const refreshMs = options.refreshMs ?? 1000;
  const app = new Hono();
  app.onError((err, c) => {
    const e = HttpError.isInstance(err)
      ? err
      : new HttpError(500, `internal error: ${(err as Error).message}`, 'server_error');
    return c.json(e.body(), e.status, { ...e.headers, 'cache-control': 'no-store' });
  });
  app.notFound((c) =>
    c.json(
      new HttpError(404, `no route ${c.req.method} ${c.req.path}`, 'invalid_request_error', 'not_found').body(),
      404,
    ),
  );
  app.use('*', async (c, next) => {
    await next();
    c.header('x-content-type-options', 'nosniff');
    c.header('referrer-policy', 'no-referrer');
    c.header('cache-control', 'no-store');
  });
  if (options.guard) app.use('*', options.guard.middleware());
  if (options.token !== undefined) app.use('*', boardAuth(options.token));

  app.get('/', (c) => c.html(boardHtml(), 200, { 'content-security-policy': BOARD_CSP }));
  app.get('/board.js', (c) => c.body(asset('board.js'), 200, { 'content-type': 'text/javascript; charset=utf-8' }));
  app.get('/board.css', (c) => c.body(asset('board.css'), 200, { 'content-type': 'text/css; charset=utf-8' }));

  app.get('/api/runs', async (c) => {
    const since = Number(c.req.query('since') ?? '0');
    if (!Number.isSafeInteger(since) || since < 0) throw invalidRequest('since: not a version number', 'since');
    await index.refresh(refreshMs);
    const changes = index.changesSince(since);
    if (changes) return c.json({ full: false, pollMs: options.pollMs ?? 2000, ...changes });
    return c.json({
      full: true,
      pollMs: options.pollMs ?? 2000,
      version: index.version,
      roots: index.roots,
      rows: index.rows(),
      benches: index.benchList(),
      removed: [],
      skipped: index.skipped(),
    });
  });

  app.get('/api/bench', async (c) => {
    await index.refresh(refreshMs);
    const { dir, root, bench } = benchOf(index, c.req.query('id'));
    const results = benchResults(dir).map((r) => {
      const traceDir = r.traceDir ? join(dir, r.traceDir) : null;
      // the trace as the board lists it (a results line's path is data: it only ever looks up the index)
      const runId = traceDir ? relative(root, traceDir).split(sep).join('/') : null;
      const listed = runId && index.runDir(`${bench.id.slice(0, bench.id.indexOf('/'))}/${runId}`);
      return {
        taskId: r.taskId,
        epoch: r.epoch,
        pass: r.pass,
        score: r.score,
        stopReason: r.stopReason,
        steps: r.steps,
        tokens: r.tokens,
        cost: r.cost,
        durationMs: r.durationMs,
        error: r.error,
        run: listed ? listed.row.id : null,
      };
    });
    return c.json({ bench, results });
  });

  app.get('/view', async (c) => {
    await index.refresh(refreshMs);
    const ids = [c.req.query('run'), c.req.query('b')].filter((x): x is string => x !== undefined);
    if (!ids.length) throw invalidRequest('give the run to show: /view?run=<id> (and &b=<id> for a second one)', 'run');
    const traces = await Promise.all(ids.map((id) => openRun(index, id)));
    const branches = new Map<string, Trace[]>();
    for (const t of traces) {
      const warnings: string[] = [];
      if (isWorkflowManifest(t.manifest))
        branches.set(t.dir, await branchTraces({ err: (line) => void warnings.push(line.trim()) }, t.dir));
      t.warnings.push(...warnings);
    }
    const html = viewHtml(viewData(traces, branches));
    // A running run's page reloads itself until the run ends: each load renders the trace as far as it is written.
    const running = traces.some((t) => t.manifest.status === 'running');
    return c.html(
      running ? html.replace('<head>', `<head><meta http-equiv="refresh" content="${VIEW_REFRESH_S}">`) : html,
      200,
      { 'content-security-policy': VIEW_CSP },
    );
  });

  app.get('/bench-report', async (c) => {
    await index.refresh(refreshMs);
    const ids = c.req.queries('id') ?? [];
    if (!ids.length) throw invalidRequest('give the bench folder: /bench-report?id=<id> (repeat id to compare)', 'id');
    const folders = ids.map((id) => benchOf(index, id));
    let html: string;
    try {
      html = benchReportHtml(
        benchReportData(
          folders.map((f) => f.dir),
          folders.map((f) => f.bench.path),
        ),
      );
    } catch (err) {
      throw new HttpError(409, (err as Error).message, 'invalid_request_error', 'bench_unreadable', 'id');
    }
    return c.html(html, 200, { 'content-security-policy': REPORT_CSP });
  });
  return app;
}

/** A bench folder of the index, checked inside its root. */
function benchOf(index: BoardIndex, id: string | undefined) {
  if (!id) throw invalidRequest('give the bench folder: ?id=<id>', 'id');
  const found = index.benchDir(id);
  if (!found)
    throw new HttpError(
      404,
      `no bench folder ${JSON.stringify(id.slice(0, 200))} on this board`,
      'invalid_request_error',
      'not_found',
      'id',
    );
  refuseOutside(found.root, found.dir);
  return found;
}

/** Reads a listed run's trace, after checking that nothing in its folder leads outside the board's folder. */
async function openRun(index: BoardIndex, id: string): Promise<Trace> {
  const found = index.runDir(id);
  if (!found)
    throw new HttpError(
      404,
      `no run ${JSON.stringify(id.slice(0, 200))} on this board`,
      'invalid_request_error',
      'run_not_found',
      'run',
    );
  refuseOutside(found.root, found.dir);
  try {
    return await readTrace(found.dir, { validateSteps: false });
  } catch (err) {
    if (TraceError.isInstance(err))
      throw new HttpError(409, err.message, 'invalid_request_error', 'trace_unreadable', 'run');
    throw err;
  }
}

function refuseOutside(root: string, dir: string): void {
  const why = folderOutsideRoot(root, dir);
  if (why) throw new HttpError(403, `refused: ${why}`, 'invalid_request_error', 'outside_board');
}

/** A file of the board page, read once per request (small; the page loads it once). */
function asset(name: string): string {
  return readFileSync(new URL(`./${name}`, import.meta.url), 'utf8');
}
