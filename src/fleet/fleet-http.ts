/**
 * The web server of a fleet instance, on `mfr:httpPort`: the web view over every session in
 * the shared database (./database-view.ts), beside the operations endpoints (/readyz,
 * /metrics, /healthz). Same server, same rules as a single coordinator's view
 * (src/web/http-server.ts): loopback unless a token is set, read-only. What differs:
 * timelines are always rebuilt from the logged events (the stream of steps the view hears is
 * not every step of every session), and no export files are offered (they are made from the
 * embedded SQLite store, which a fleet instance does not have).
 */
import type { Logger } from "pino";
import type pg from "pg";
import { writeIdleLimitMs } from "../config/lease-timing.js";
import type { Config } from "../config/schema.js";
import type { Route } from "../ops/route.js";
import { openPool } from "../store/pg/pool.js";
import { startWebView, type RunningWebView } from "../web/index.js";
import type { RoomKeepingLine } from "../web/sessions-page.js";
import { DatabaseView } from "./database-view.js";

/** Connections of the web view's own pool: one refresh and one page load at a time. */
const VIEW_CONNECTIONS = 2;

/** Where and how the instance's web server listens, and what it serves. */
export interface FleetWebOptions {
  readonly host: string;
  /** 0 takes any free port. */
  readonly port: number;
  /** Required unless `host` is a loopback address (the server refuses to start otherwise). */
  readonly token: string | undefined;
  readonly view: DatabaseView;
  /** The operations endpoints, tried after the view's routes. */
  readonly operations: readonly Route[];
  /** Whether the rooms this instance owns keep agents' protocol messages (the sessions page says so). */
  readonly rooms?: () => readonly RoomKeepingLine[];
  readonly now: () => number;
  readonly log: Logger;
}

/** Starts listening; rejects when the address is not allowed or cannot be bound. */
export function startFleetWebView(options: FleetWebOptions): Promise<RunningWebView> {
  const { view } = options;
  return startWebView({
    host: options.host,
    port: options.port,
    token: options.token,
    sessions: view,
    archive: view,
    store: undefined,
    rememberTimelines: false,
    ...(options.rooms ? { rooms: options.rooms } : {}),
    now: options.now,
    log: options.log,
    extraRoutes: options.operations,
  });
}

/** What an instance serves on `mfr:httpPort`: the web server, and the view it reads through its own pool. */
export interface FleetWebServer {
  readonly view: RunningWebView;
  readonly sessions: DatabaseView;
  /** Stops listening, then closes the view and its pool. */
  close(): Promise<void>;
}

/** How an instance's web server is made: where, and what the operations endpoints answer. */
export interface ServeFleetWebOptions {
  readonly config: Config;
  readonly instanceId: string;
  readonly port: number;
  readonly rooms: () => readonly RoomKeepingLine[];
  readonly operations: readonly Route[];
  readonly now: () => number;
  readonly log: Logger;
}

/**
 * Opens the view's pool (its reads never hold up a lease renewal or a write), starts the
 * server and the view's refreshes; a port that cannot be bound, or an address beyond
 * loopback without a token, rejects, with the pool closed again.
 */
export async function serveFleetWeb(options: ServeFleetWebOptions): Promise<FleetWebServer> {
  const { config, log } = options;
  const { http, shared } = config;
  const pool: pg.Pool = openPool({
    url: shared.database ?? "",
    applicationName: `mfr-coordinator ${options.instanceId} web view`.slice(0, 63),
    max: VIEW_CONNECTIONS,
    limits: { idleInTransactionMs: writeIdleLimitMs(shared) },
    onIdleError: (err) => log.warn({ err: err.message }, "an idle connection of the web view to the database broke; the pool opens a new one"),
  });
  const sessions = new DatabaseView({ pool, log });
  let view: RunningWebView;
  try {
    view = await startFleetWebView({ host: http.host, port: options.port, token: http.token ?? undefined, view: sessions, rooms: options.rooms, operations: options.operations, now: options.now, log });
  } catch (err) {
    await sessions.close();
    await pool.end().catch(() => undefined);
    throw err;
  }
  sessions.start();
  log.info({ url: view.url, token: http.token !== null, shows: "every session in the shared database", beside: ["/readyz", "/metrics", "/healthz"] }, "web view listening");
  return {
    view,
    sessions,
    close: async () => {
      await view.close();
      await sessions.close();
      await pool.end().catch((err: unknown) => log.warn({ err }, "closing the web view's database pool failed"));
    },
  };
}
