/**
 * sendWithoutDelay: every socket the client opens leaves Nagle's algorithm off, the TCP
 * socket itself (xmpp://) or the one inside @xmpp/tls's wrapper (xmpps://).
 */
import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { sendWithoutDelay } from "../../src/xmpp/no-delay.js";

class FakeClient extends EventEmitter {
  socket: object | null = null;
}

function tcpSocket(): { setNoDelay: (noDelay: boolean) => void; calls: boolean[] } {
  const calls: boolean[] = [];
  return { calls, setNoDelay: (noDelay: boolean) => void calls.push(noDelay) };
}

describe("sendWithoutDelay", () => {
  it("turns Nagle off on each new TCP socket, reconnections included", () => {
    const client = new FakeClient();
    sendWithoutDelay(client);
    const first = tcpSocket();
    client.socket = first;
    client.emit("connect");
    const second = tcpSocket();
    client.socket = second;
    client.emit("connect");
    expect(first.calls).toEqual([true]);
    expect(second.calls).toEqual([true]);
  });

  it("reaches the TCP socket inside a TLS wrapper that has no setNoDelay of its own", () => {
    const client = new FakeClient();
    sendWithoutDelay(client);
    const inner = tcpSocket();
    client.socket = { socket: inner };
    client.emit("connect");
    expect(inner.calls).toEqual([true]);
  });

  it("leaves a socket without either alone", () => {
    const client = new FakeClient();
    sendWithoutDelay(client);
    client.socket = {};
    expect(() => client.emit("connect")).not.toThrow();
  });
});
