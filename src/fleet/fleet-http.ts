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
import type { Route } from "../ops/route.js";
import { startWebView, type RunningWebView } from "../web/index.js";
import type { RoomKeepingLine } from "../web/sessions-page.js";
import type { DatabaseView } from "./database-view.js";

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
