/**
 * The operations endpoints, as routes for the coordinator's web server (src/web/):
 * - GET /metrics: every metric in the Prometheus text format;
 * - GET /healthz: 200 while the process answers at all (liveness: restart it when not);
 * - GET /readyz: 200 when connected, in every room and the store takes writes, else 503
 *   with the reasons (readiness: do not count on it until it is ready again).
 * Other methods on these paths get 405; other paths are left to the next route.
 */
import type { ServerResponse } from "node:http";
import type { Readiness } from "./readiness.js";
import type { Route } from "./route.js";

export interface OperationsRouteDeps {
  metrics: { text(): Promise<string>; readonly contentType: string };
  /** Decided afresh at each request: probes are rare, and a stale "ready" would hide an outage. */
  readiness: () => Readiness;
}

export function operationsRoutes(deps: OperationsRouteDeps): Route[] {
  return [
    route("/metrics", async (response) => send(response, 200, deps.metrics.contentType, await deps.metrics.text())),
    route("/healthz", (response) => sendJson(response, 200, { alive: true })),
    route("/readyz", (response) => {
      const readiness = deps.readiness();
      sendJson(response, readiness.ready ? 200 : 503, readiness);
    }),
  ];
}

/** A route answering GET (and HEAD) on one path. */
function route(path: string, answer: (response: ServerResponse) => void | Promise<void>): Route {
  return async (request, response, url) => {
    if (url.pathname !== path) return false;
    if (request.method !== "GET" && request.method !== "HEAD") {
      response.setHeader("allow", "GET, HEAD");
      send(response, 405, "text/plain; charset=utf-8", "method not allowed\n");
      return true;
    }
    await answer(response);
    return true;
  };
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  send(response, status, "application/json; charset=utf-8", `${JSON.stringify(body)}\n`);
}

function send(response: ServerResponse, status: number, contentType: string, body: string): void {
  response.writeHead(status, { "content-type": contentType, "cache-control": "no-store", "content-length": Buffer.byteLength(body) });
  // HEAD gets the headers only; Node drops a body written to a HEAD response.
  response.end(body);
}
