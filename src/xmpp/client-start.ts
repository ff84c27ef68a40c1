/**
 * Starts a client as @xmpp/connection's own start() does (the socket, then the stream, then
 * online), except that no promise is left without a handler. The library's start() makes its
 * promise of "online" before it opens the stream, and drops it when the opening fails; the
 * error that failed the opening (a server that resets the socket before its stream header, or
 * our stop() closing a client that is still starting) also rejects that dropped promise, an
 * unhandled rejection.
 */
import { once } from "node:events";
import type { Client } from "@xmpp/client";

/** Resolves once the client is online; rejects with the error that ended the attempt. */
export async function startClient(xmpp: Client): Promise<void> {
  if (xmpp.status !== "offline") throw new Error("Connection is not offline");
  const { service, domain, lang } = xmpp.options;
  if (!service) throw new Error("the client has no service to connect to");
  await xmpp.connect(service);
  // Rejects on the client's "error", as the library's promise does.
  const online = once(xmpp, "online");
  // When the opening fails with the same error, `online` is never awaited: this handles it.
  online.catch(() => undefined);
  await xmpp.open({ domain: domain ?? "", lang });
  await online;
}
