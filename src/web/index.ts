/**
 * The web view: a read-only HTTP server over the sessions, fed by the host's stream of
 * steps and the store. `startWebView` is what the coordinator calls; other routes (the
 * operations endpoints) are served beside the view's own.
 */
import type { Logger } from "pino";
import type { Route } from "../ops/route.js";
import type { SessionStore } from "../store/index.js";
import { startHttpServer } from "./http-server.js";
import { webRoutes } from "./routes.js";
import { SessionRecords, type LiveSessions, type SessionArchive } from "./session-records.js";
import type { RoomKeepingLine } from "./sessions-page.js";

export { HttpServerError, startHttpServer } from "./http-server.js";
export { isLoopback } from "../base/loopback.js";
export type { HttpServerOptions, RunningHttpServer } from "./http-server.js";
export type { LiveSessions, ListedArchived, SessionArchive } from "./session-records.js";

export interface WebViewOptions {
  host: string;
  port: number;
  token: string | undefined;
  sessions: LiveSessions;
  /** The embedded store: the archive, and the export files offered for download. */
  store: SessionStore | undefined;
  /** The archive when it is not the store (the fleet's database view). Downloads come from `store` only: none without it. */
  archive?: SessionArchive;
  /** See SessionRecordsOptions.rememberTimelines (default true). */
  rememberTimelines?: boolean;
  now: () => number;
  log: Logger;
  /** Routes served beside the view's (tried after them), e.g. /metrics and /healthz. */
  extraRoutes?: readonly Route[];
  /** Whether each protocol room keeps agents' protocol messages, shown on the sessions page; none: not shown. */
  rooms?: () => readonly RoomKeepingLine[];
}


export interface RunningWebView {
  url: string;
  close(): Promise<void>;
}

export async function startWebView(options: WebViewOptions): Promise<RunningWebView> {
  const records = new SessionRecords(options.sessions, options.archive ?? options.store, { rememberTimelines: options.rememberTimelines ?? true });
  try {
    const server = await startHttpServer({
      host: options.host,
      port: options.port,
      token: options.token,
      routes: [...webRoutes({ records, store: options.store, now: options.now, ...(options.rooms ? { rooms: options.rooms } : {}) }), ...(options.extraRoutes ?? [])],
      log: options.log,
    });
    return {
      url: server.url,
      close: async () => {
        records.close();
        await server.close();
      },
    };
  } catch (err) {
    records.close();
    throw err;
  }
}
