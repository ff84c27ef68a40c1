/**
 * The coordinator's HTTP server: binding, access and the headers every answer carries.
 * What it answers is a list of routes (the web view's, the operations endpoints'), tried in
 * order. Read-only: GET and HEAD only. It refuses to listen beyond loopback without a token.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import type { Route } from "../ops/route.js";
import { decideAccess } from "./access.js";
import { isLoopback } from "../base/loopback.js";

export interface HttpServerOptions {
  host: string;
  /** 0 takes any free port (the URL says which). */
  port: number;
  /** Required unless `host` is a loopback address. */
  token: string | undefined;
  routes: readonly Route[];
  log: Logger;
}

export interface RunningHttpServer {
  /** Where it listens, e.g. `http://127.0.0.1:8080/`. */
  url: string;
  close(): Promise<void>;
}

export class HttpServerError extends Error {
  override readonly name = "HttpServerError";
}

/** Scripts, styles and data only from the coordinator itself; no inline script runs. */
export const CONTENT_SECURITY_POLICY = "default-src 'self'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

const MAX_HEADER_BYTES = 16 * 1024;
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;
const KEEP_ALIVE_TIMEOUT_MS = 5_000;
/** Bounds open sockets, live streams included; the view is for a few people, not a crowd. */
const MAX_CONNECTIONS = 200;

/** Starts listening; rejects when the address is not allowed or cannot be bound. */
export async function startHttpServer(options: HttpServerOptions): Promise<RunningHttpServer> {
  const { host, port, token, routes, log } = options;
  if (!isLoopback(host) && !token) {
    throw new HttpServerError(`the web view may listen on ${host} (not loopback) only with a token (mfr:httpToken in the secrets file, or MFR_HTTP_TOKEN)`);
  }
  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES, headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS }, (request, response) => {
    void answer(request, response, routes, token, log);
  });
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.maxConnections = MAX_CONNECTIONS;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  server.on("error", (err) => log.error({ err }, "web view server error"));
  const address = server.address() as AddressInfo;
  const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        // Live streams never end by themselves: close every socket so the process can stop.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function answer(request: IncomingMessage, response: ServerResponse, routes: readonly Route[], token: string | undefined, log: Logger): Promise<void> {
  response.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
  response.setHeader("X-Content-Type-Options", "nosniff");
  response.setHeader("Referrer-Policy", "no-referrer");
  response.setHeader("Cache-Control", "no-store");
  try {
    if (request.method !== "GET" && request.method !== "HEAD") {
      response.setHeader("Allow", "GET, HEAD");
      return plain(response, 405, "read-only: GET and HEAD only");
    }
    let url: URL;
    try {
      url = new URL(request.url ?? "/", "http://localhost");
    } catch {
      return plain(response, 400, "not a request target");
    }
    const access = decideAccess(request, url, token);
    if (access.kind === "denied") {
      response.setHeader("WWW-Authenticate", 'Bearer realm="mfr-coordinator"');
      return plain(response, 401, "a token is required: Authorization: Bearer <token>, or ?token=<token> once in a browser");
    }
    if (access.kind === "remember") {
      response.setHeader("Set-Cookie", access.cookie);
      response.setHeader("Location", access.location);
      return plain(response, 303, "token accepted");
    }
    for (const route of routes) {
      if (await route(request, response, url)) return;
    }
    plain(response, 404, "not found");
  } catch (err) {
    // The path only: a query may carry the token.
    log.error({ err, path: (request.url ?? "").split("?")[0] }, "web view request failed");
    if (response.headersSent) response.destroy();
    else plain(response, 500, "internal error (see the coordinator's log)");
  }
}

/** A short plain-text answer. */
export function plain(response: ServerResponse, status: number, text: string): void {
  response.statusCode = status;
  response.setHeader("Content-Type", "text/plain; charset=utf-8");
  response.end(`${text}\n`);
}
