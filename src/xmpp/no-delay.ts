/**
 * Turns off Nagle's algorithm on every socket a client opens. Node's sockets keep it on: a
 * write that does not fill a segment waits for the server to acknowledge the previous one,
 * and the server's TCP stack delays that acknowledgement by up to 40 ms. A room message
 * written right after another (the SolutionRequest after the ModelValidationResult) then
 * reached the room 40 ms late, measured with bench/load.ts; a chat bot's writes are small
 * and latency-bound, so each should leave at once.
 */

/** The part of @xmpp/connection this hooks: it announces each new socket as status "connect". */
interface SocketOwner {
  on(event: "connect", listener: () => void): unknown;
  socket: { setNoDelay?: (noDelay: boolean) => unknown } | null;
}

export function sendWithoutDelay(client: object): void {
  const owner = client as SocketOwner;
  owner.on("connect", () => owner.socket?.setNoDelay?.(true));
}
