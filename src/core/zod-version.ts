import { z } from 'zod';

/**
 * qitos-ts needs zod 4, its peer dependency. npm refuses to install it next to zod 3, but pnpm and yarn only warn,
 * and zod 3 builds our schemas without complaint and then fails deep inside a run: fail on import instead, with
 * the fix. Every entry point of the package imports this module first (test/packaging/public-api.test.ts checks
 * it), before any module that builds a schema; `core/index.ts` does too, for the CLI's commands.
 */
if (typeof (z as { toJSONSchema?: unknown }).toJSONSchema !== 'function') {
  throw new Error(
    'qitos-ts needs zod ^4.0.0 (a peer dependency), but the zod it imports is older (it has ' +
      'no z.toJSONSchema, as zod 3): npm install zod@^4',
  );
}
