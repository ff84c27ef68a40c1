/**
 * Who may read the web view. Without a token (allowed on loopback only) everyone who can
 * reach the port may; with one, every request must carry it: `Authorization: Bearer <token>`
 * for programs, or once `?token=<token>` in a browser, which sets an HttpOnly cookie (an
 * EventSource cannot send headers) and redirects to the same address without the token.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

export const TOKEN_COOKIE = "mfr_token";

export type AccessDecision =
  | { kind: "allowed" }
  /** The token came in the query: set the cookie and send the browser to `location`. */
  | { kind: "remember"; cookie: string; location: string }
  | { kind: "denied" };

/** Equal tokens, compared in constant time (digests first, so lengths do not leak either). */
export function sameToken(given: string, expected: string): boolean {
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b);
}

function bearerOf(request: IncomingMessage): string | undefined {
  const header = request.headers.authorization;
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1];
}

function cookieOf(request: IncomingMessage): string | undefined {
  for (const part of (request.headers.cookie ?? "").split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === TOKEN_COOKIE) return decodeURIComponent(value.join("="));
  }
  return undefined;
}

/** Decides one request; `token` undefined means the view is open (loopback only, checked at start). */
export function decideAccess(request: IncomingMessage, url: URL, token: string | undefined): AccessDecision {
  if (token === undefined) return { kind: "allowed" };
  const bearer = bearerOf(request);
  if (bearer !== undefined) return sameToken(bearer, token) ? { kind: "allowed" } : { kind: "denied" };
  const fromQuery = url.searchParams.get("token");
  if (fromQuery !== null) {
    if (!sameToken(fromQuery, token)) return { kind: "denied" };
    const clean = new URL(url);
    clean.searchParams.delete("token");
    return {
      kind: "remember",
      cookie: `${TOKEN_COOKIE}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/`,
      location: `${clean.pathname}${clean.search}`,
    };
  }
  const cookie = cookieOf(request);
  return cookie !== undefined && sameToken(cookie, token) ? { kind: "allowed" } : { kind: "denied" };
}
