import type { Context, Hono } from 'hono';
import { z } from 'zod';
import { DEFAULT_MIN_SKILL_SCORE, SkillZipError, type InstallResult, type SkillManager } from '../kit/skills/index.js';
import { fromBrowser } from './local-server-guard.js';
import { HttpError, invalidRequest } from './openai-error.js';
import { jsonBody, jsonLimit, parseBody } from './request-body.js';
import { SERVE_DEFAULTS, type RouteContext } from './serve-options.js';

/** The header a browser's skill upload carries (any value): a cross-site form cannot send it. */
export const UPLOAD_HEADER = 'x-qitos-upload';

const Patch = z.strictObject({ description: z.string().min(1, 'description must not be empty') });
const Search = z.object({
  q: z.string().min(1, 'q (the query) is required'),
  top: z.coerce.number().int().min(1).max(100).default(5),
  threshold: z.coerce.number().min(-1).max(1).optional(),
});

/**
 * The skills lifecycle over HTTP, each route one SkillManager call: GET /v1/skills (list), POST /v1/skills
 * (multipart upload, field `file`, a skill ZIP; `?replace=true` to replace an installed skill),
 * PATCH /v1/skills/:name ({ description }), DELETE /v1/skills/:name, GET /v1/skills/search?q= (retrieval with scores).
 */
export function skillsRoutes(app: Hono, { options }: RouteContext): void {
  const manager = (): SkillManager => {
    if (!options.skills)
      throw new HttpError(
        404,
        'this server manages no skills: start it with a skills root (qitos serve --skills-root <dir>)',
        'invalid_request_error',
        'skills_disabled',
      );
    return options.skills;
  };
  const known = async (name: string): Promise<void> => {
    const { skills } = await manager().list();
    if (!skills.some((s) => s.name === name))
      throw new HttpError(404, `no installed skill "${name}"`, 'invalid_request_error', 'skill_not_found', 'name');
  };

  app.get('/v1/skills', async (c) => {
    const { skills, skipped } = await manager().list();
    return c.json({ object: 'list', data: skills.map(({ dir: _dir, ...s }) => s), skipped: skipped.length });
  });

  app.get('/v1/skills/search', async (c) => {
    const q = parseBody(Search, c.req.query());
    const matches = await manager().search(q.q, { top: q.top, threshold: q.threshold ?? DEFAULT_MIN_SKILL_SCORE });
    return c.json({ object: 'list', query: q.q, data: matches.map(({ path: _path, ...m }) => m) });
  });

  app.post('/v1/skills', jsonLimit(options.maxUploadBytes ?? SERVE_DEFAULTS.maxUploadBytes), async (c) => {
    const m = manager();
    // Multipart is a form a web page may post anywhere without a preflight: the Origin rule refuses other sites'
    // pages, and a browser's upload must also carry a header no cross-site form can set (or the token).
    if (
      options.token === undefined &&
      fromBrowser((n) => c.req.header(n)) &&
      c.req.header(UPLOAD_HEADER) === undefined
    ) {
      throw new HttpError(
        403,
        `an upload from a browser must carry the header ${UPLOAD_HEADER} (a page of another site ` +
          `cannot set it without a preflight, which this server does not answer)`,
        'invalid_request_error',
        'forbidden_origin',
      );
    }
    if (!(c.req.header('content-type') ?? '').startsWith('multipart/form-data'))
      throw invalidRequest('upload the skill ZIP as multipart/form-data, in a field named "file"', 'file');
    const form = await c.req.parseBody().catch((err: Error) => {
      throw invalidRequest(`the multipart body cannot be read: ${err.message}`, 'file');
    });
    const file = form.file;
    if (!(file instanceof File)) throw invalidRequest('the form has no file in a field named "file"', 'file');
    const zip = new Uint8Array(await file.arrayBuffer());
    const result = await mutation(() => m.install(zip, { replace: c.req.query('replace') === 'true' }));
    return c.json(view(result), result.replaced ? 200 : 201);
  });

  app.patch('/v1/skills/:name', async (c: Context) => {
    const name = c.req.param('name')!;
    const body = parseBody(Patch, await jsonBody(c, options.maxBodyBytes ?? SERVE_DEFAULTS.maxBodyBytes));
    await known(name);
    return c.json(view(await mutation(() => manager().update(name, { description: body.description }))));
  });

  app.delete('/v1/skills/:name', async (c) => {
    const name = c.req.param('name');
    await known(name);
    const { dir: _dir, ...skill } = await mutation(() => manager().uninstall(name));
    return c.json({ deleted: true, skill });
  });
}

/** A refused ZIP, a skill that exists already or a description the frontmatter rejects is the client's error (400/409). */
async function mutation<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    const message = (err as Error).message;
    if (SkillZipError.isInstance(err)) throw invalidRequest(message, 'file', 'invalid_skill_zip');
    // The manager's words name the CLI's way (`update`); a REST client replaces with ?replace=true or PATCH.
    if (/already installed/.test(message))
      throw new HttpError(
        409,
        message.replace(/; use update to replace it$/, '; POST it with ?replace=true to replace it'),
        'invalid_request_error',
        'skill_exists',
      );
    if (/SKILL\.md|description/.test(message)) throw invalidRequest(message, null, 'invalid_skill');
    throw err;
  }
}

function view(result: InstallResult) {
  const { dir: _dir, ...skill } = result.skill;
  return { skill, files: result.files, bytes: result.bytes, replaced: result.replaced };
}
