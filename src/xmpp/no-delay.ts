/**
 * Turns off Nagle's algorithm on every socket a client opens. Node's sockets keep it on: a
 * write that does not fill a segment waits for the server to acknowledge the previous one,
 * and the server's TCP stack delays that acknowledgement by up to 40 ms. A room message
 * written right after another (the SolutionRequest after the ModelValidationResult) then
 * reached the room 40 ms late, measured with bench/load.ts; a chat bot's writes are small
 * and latency-bound, so each should leave at once.
 */

interface TcpSocket {
  setNoDelay?: (noDelay: boolean) => unknown;
  /** @xmpp/tls wraps the TCP socket (xmpps://): the setting belongs to the one inside. */
  socket?: TcpSocket;
}

/** The part of @xmpp/connection this hooks: it announces each new socket as status "connect". */
interface SocketOwner {
  on(event: "connect", listener: () => void): unknown;
  socket: TcpSocket | null;
}

/**
 * For xmpp:// (STARTTLS keeps the TCP socket underneath) and xmpps://. A WebSocket service
 * (ws://, wss://) has no socket of this kind here and is left as it is.
 */
export function sendWithoutDelay(client: object): void {
  const owner = client as SocketOwner;
  owner.on("connect", () => {
    const socket = owner.socket;
    const tcp = typeof socket?.setNoDelay === "function" ? socket : socket?.socket;
    tcp?.setNoDelay?.(true);
  });
}
