import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { z } from 'zod';
import { readManifest, readTrace, TraceError, type Trace } from '../trace/index.js';
import { listRuns } from '../app/run-listing.js';
import { viewData } from '../app/view/view-data.js';
import { viewHtml } from '../app/view/view-html.js';
import { HttpError, invalidRequest } from './openai-error.js';
import type { RouteContext } from './serve-options.js';

const Page = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(20),
  offset: z.coerce.number().int().min(0).default(0),
});

/** A run id as the engine makes them: one folder name under the trace folder, never a path. */
const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/** How often the viewer page of a running run reloads itself, in seconds. */
const VIEW_REFRESH_S = 2;

/**
 * GET /v1/runs (paged, newest first), /v1/runs/:id (manifest), /v1/runs/:id/events (SSE: live while the run
 * runs, from its first event; a finished run's trace events from the start) and /v1/runs/:id/view (the HTML
 * viewer, reloading itself while the run runs).
 */
export function runsRoutes(app: Hono, { options, runs }: RouteContext): void {
  const traceDir = (id: string): string => {
    if (!RUN_ID.test(id)) throw invalidRequest(`not a run id: ${JSON.stringify(id.slice(0, 80))}`, 'id');
    return join(options.traceDir, id);
  };
  const trace = async (id: string): Promise<Trace> => {
    try {
      return await readTrace(traceDir(id), { validateSteps: false });
    } catch (err) {
      if (TraceError.isInstance(err))
        throw new HttpError(404, `no run ${id}: ${err.message}`, 'invalid_request_error', 'run_not_found', 'id');
      throw err;
    }
  };

  app.get('/v1/runs', async (c) => {
    const q = Page.safeParse(c.req.query());
    if (!q.success)
      throw invalidRequest(
        `${q.error.issues[0].path.join('.')}: ${q.error.issues[0].message}`,
        q.error.issues[0].path.join('.'),
      );
    const { limit, offset } = q.data;
    // No trace folder yet: no runs.
    const rows = existsSync(options.traceDir) ? (await listRuns(options.traceDir)).rows : [];
    const page = rows
      .slice(offset, offset + limit)
      .map(({ path: _path, ...row }) => ({ ...row, live: runs.get(row.runId) !== undefined }));
    return c.json({
      object: 'list',
      data: page,
      total: rows.length,
      has_more: offset + limit < rows.length,
      next_offset: offset + limit < rows.length ? offset + limit : null,
    });
  });

  app.get('/v1/runs/:id', async (c) => {
    const id = c.req.param('id');
    const manifest = await readManifest(traceDir(id)).catch((err: unknown) => {
      if (TraceError.isInstance(err))
        throw new HttpError(404, `no run ${id}: ${err.message}`, 'invalid_request_error', 'run_not_found', 'id');
      throw err;
    });
    return c.json({ ...manifest, live: runs.get(id) !== undefined });
  });

  app.get('/v1/runs/:id/events', async (c) => {
    const id = c.req.param('id');
    const live = runs.get(id);
    if (live) {
      return streamSSE(c, async (sse) => {
        for await (const e of live.follow()) {
          if (e.type === 'result')
            await sse.writeSSE({ event: 'end', data: JSON.stringify({ runId: id, stopReason: e.result.stopReason }) });
          else await sse.writeSSE({ event: e.type, data: JSON.stringify(e) });
          if (sse.aborted) return;
        }
      });
    }
    const t = await trace(id);
    return streamSSE(c, async (sse) => {
      for (const e of t.events) {
        await sse.writeSSE({ event: e.type, data: JSON.stringify(e) });
        if (sse.aborted) return;
      }
      await sse.writeSSE({
        event: 'end',
        data: JSON.stringify({ runId: id, stopReason: t.manifest.summary?.stopReason ?? null }),
      });
    });
  });

  app.get('/v1/runs/:id/view', async (c) => {
    const id = c.req.param('id');
    const t = await trace(id);
    const html = viewHtml(viewData([t]));
    const running = runs.get(id) !== undefined;
    // A running run's page reloads itself until the run ends: each load renders the trace as far as it is written.
    return c.html(
      running ? html.replace('<head>', `<head><meta http-equiv="refresh" content="${VIEW_REFRESH_S}">`) : html,
      200,
      {
        'content-security-policy':
          "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:",
      },
    );
  });
}
