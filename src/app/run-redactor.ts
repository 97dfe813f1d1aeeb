import { Redactor } from '../core/redactor.js';
import type { AppIO } from './app-io.js';

/** Names of variables that hold credentials: provider API keys, auth tokens, QITOS_SERVE_TOKEN, passwords. */
const SECRET_NAME = /(API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)/i;

/**
 * The redactor of a command's runs: it starts with the values of the environment's credential variables (the
 * API key the run's model uses is among them, whichever provider; so is the serve token), and the MCP servers
 * add the `${VAR}` values their configs expand as they start.
 */
export function commandRedactor(env: Record<string, string | undefined>, ...more: Array<string | undefined>): Redactor {
  return new Redactor([
    ...Object.entries(env)
      .filter(([k]) => SECRET_NAME.test(k))
      .map(([, v]) => v),
    ...more,
  ]);
}

/**
 * Makes `io` print through `redactor` (log lines may quote a server's stderr) and hold it as `io.redactor`. In place:
 * commands set `io.exitCode` on this same object.
 */
export function redactIO<T extends AppIO>(io: T, redactor: Redactor): T {
  const out = io.out.bind(io);
  const err = io.err.bind(io);
  return Object.assign(io, {
    redactor,
    out: (t: string) => out(redactor.redact(t)),
    err: (t: string) => err(redactor.redact(t)),
  });
}
