/** The web view's server: loopback by default, the token, the headers every answer carries, read-only. */
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import type { Route } from "../../src/ops/route.js";
import { CONTENT_SECURITY_POLICY, HttpServerError, startHttpServer, type RunningHttpServer } from "../../src/web/http-server.js";
import { isLoopback } from "../../src/base/loopback.js";

const log = pino({ level: "silent" });
const hello: Route = (_req, res, url) => {
  if (url.pathname !== "/hello") return false;
  res.setHeader("Content-Type", "text/plain");
  res.end("hello");
  return true;
};
const TOKEN = "a-token-long-enough-1234";
const running: RunningHttpServer[] = [];
afterEach(async () => {
  for (const s of running.splice(0)) await s.close();
});

async function serve(token?: string, host = "127.0.0.1"): Promise<RunningHttpServer> {
  const server = await startHttpServer({ host, port: 0, token, routes: [hello], log });
  running.push(server);
  return server;
}

describe("the web view's HTTP server", () => {
  it("listens on 127.0.0.1 and answers with the security headers", async () => {
    const server = await serve();
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const answer = await fetch(new URL("/hello", server.url));
    expect(answer.status).toBe(200);
    expect(await answer.text()).toBe("hello");
    expect(answer.headers.get("content-security-policy")).toBe(CONTENT_SECURITY_POLICY);
    expect(CONTENT_SECURITY_POLICY).toContain("default-src 'self'");
    expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
    expect((await fetch(new URL("/nothing", server.url))).status).toBe(404);
  });

  it("is read-only: anything but GET and HEAD is refused", async () => {
    const server = await serve();
    const answer = await fetch(new URL("/hello", server.url), { method: "POST", body: "x" });
    expect(answer.status).toBe(405);
    expect(answer.headers.get("allow")).toBe("GET, HEAD");
    expect((await fetch(new URL("/hello", server.url), { method: "HEAD" })).status).toBe(200);
  });

  it("refuses to listen beyond loopback without a token", async () => {
    await expect(startHttpServer({ host: "0.0.0.0", port: 0, token: undefined, routes: [], log })).rejects.toBeInstanceOf(HttpServerError);
    expect(isLoopback("127.0.0.1")).toBe(true);
    expect(isLoopback("::1")).toBe(true);
    expect(isLoopback("[::1]")).toBe(true);
    expect(isLoopback("localhost")).toBe(true);
    expect(isLoopback("0.0.0.0")).toBe(false);
    expect(isLoopback("192.168.1.10")).toBe(false);
    expect(isLoopback("127.0.0.1.example.org")).toBe(false);
  });

  it("with a token, asks for it: bearer header, or once in the query for a cookie", async () => {
    const server = await serve(TOKEN, "0.0.0.0");
    const url = new URL("/hello", server.url.replace("0.0.0.0", "127.0.0.1"));
    const without = await fetch(url);
    expect(without.status).toBe(401);
    expect(without.headers.get("www-authenticate")).toContain("Bearer");
    expect((await fetch(url, { headers: { authorization: "Bearer wrong-token-of-some-length" } })).status).toBe(401);
    expect((await fetch(url, { headers: { authorization: `Bearer ${TOKEN}x` } })).status).toBe(401);
    expect((await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);

    const withQuery = new URL(url);
    withQuery.searchParams.set("token", TOKEN);
    withQuery.searchParams.set("status", "live");
    const redirect = await fetch(withQuery, { redirect: "manual" });
    expect(redirect.status).toBe(303);
    expect(redirect.headers.get("location")).toBe("/hello?status=live");
    const cookie = redirect.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const withCookie = await fetch(url, { headers: { cookie: cookie.split(";")[0] as string } });
    expect(withCookie.status).toBe(200);
    expect((await fetch(url, { headers: { cookie: "mfr_token=guess" } })).status).toBe(401);
    withQuery.searchParams.set("token", "not-the-token");
    expect((await fetch(withQuery, { redirect: "manual" })).status).toBe(401);
  });

  it("a route that throws costs that request only", async () => {
    const server = await startHttpServer({ host: "127.0.0.1", port: 0, token: undefined, routes: [() => { throw new Error("broken route"); }], log });
    running.push(server);
    expect((await fetch(new URL("/x", server.url))).status).toBe(500);
    expect((await fetch(new URL("/x", server.url))).status).toBe(500);
  });
});
