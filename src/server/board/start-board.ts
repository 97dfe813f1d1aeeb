// The declaration names Node types (Server): consumers compiling without types: ["node"] get them through this.
/// <reference types="node" preserve="true" />
import type { Server } from 'node:http';
import { localGuard } from '../local-server-guard.js';
import type { ConnectionLimits } from '../serve-options.js';
import { bindingNote, listen } from '../start-server.js';
import { createBoardApp, type BoardAppOptions } from './board-app.js';

/** Where and how `startBoard` listens. */
export interface StartBoardOptions extends Omit<BoardAppOptions, 'guard'>, ConnectionLimits {
  /** Default 127.0.0.1. A host that is not loopback requires a token, as for `qitos serve`. */
  host?: string;
  /** Default 8789; 0 picks a free port. */
  port?: number;
  /** Host names accepted besides the ones the board listens as (`name` or `name:port`; see LocalServerGuard). */
  allowedHosts?: string[];
}

/** A listening board. */
export interface RunningBoard {
  url: string;
  server: Server;
  /** A line for the operator about the token (none needed on loopback, or one is required). */
  authNote: string;
  /** Stops listening, closes the connections and writes the index cache. */
  close(): Promise<void>;
}

/**
 * Starts the board: the app behind the Host/Origin guard of `qitos serve`, on the same Node server with the same
 * connection limits; bound elsewhere than loopback it refuses to start without a token (an Error).
 */
export async function startBoard(options: StartBoardOptions): Promise<RunningBoard> {
  const host = options.host ?? '127.0.0.1';
  const authNote = bindingNote(host, options.token);
  const { guard, listening } = localGuard(host, options.allowedHosts);
  const app = createBoardApp({ ...options, guard });
  // The first listing is built before the board answers: the first page load shows every run.
  await options.index.refresh();
  const { server, url } = await listen(app.fetch, host, options.port ?? 8789, options);
  listening(server);
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }).then(() => options.index.close()));
  return { url, server, authNote, close };
}
