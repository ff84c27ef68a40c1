/**
 * A plain HTTP server on a free loopback port that runs a list of routes in order (404 when
 * none answers): enough to test routes without the coordinator's web server.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Route } from "../../src/ops/route.js";

export interface RouteServer {
  url: string;
  close(): Promise<void>;
}

export async function serveRoutes(routes: readonly Route[]): Promise<RouteServer> {
  const server: Server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? "/", "http://localhost");
      for (const route of routes) if (await route(request, response, url)) return;
      response.writeHead(404).end();
    })().catch(() => response.writeHead(500).end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
