// `node --import <this file>`: appends the URL of every module the process loads to the file named by
// QITOS_LOAD_LOG, one per line. The packaging test reads it to check what a command loaded (and did not).
import { register } from 'node:module';

register(
  'data:text/javascript,' +
    encodeURIComponent(
      `import { appendFileSync } from 'node:fs';
       export async function load(url, context, next) {
         if (process.env.QITOS_LOAD_LOG) appendFileSync(process.env.QITOS_LOAD_LOG, url + '\\n');
         return next(url, context);
       }`,
    ),
);
