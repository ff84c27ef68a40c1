/**
 * A TCP proxy on loopback between a client and the test server, so a test can take a
 * connection away as a network would: `cut` closes every connection through it at once
 * (the server sees its client go, the client its server), and refuses new ones for a while.
 */
import { createServer, connect, type Server, type Socket } from "node:net";
import type { LocalProsody } from "./prosody.js";

export class TcpProxy {
  private readonly pairs = new Set<[Socket, Socket]>();
  private refusingUntil = 0;

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    // The connection handler needs the proxy, which needs the server: a holder breaks the circle.
    const holder: { proxy?: TcpProxy } = {};
    const server = createServer((client) => {
      const proxy = holder.proxy;
      if (!proxy || Date.now() < proxy.refusingUntil) {
        client.destroy();
        return;
      }
      const upstream = connect(target.port, target.host);
      const pair: [Socket, Socket] = [client, upstream];
      proxy.pairs.add(pair);
      const end = () => {
        client.destroy();
        upstream.destroy();
        proxy.pairs.delete(pair);
      };
      client.on("error", end).on("close", end);
      upstream.on("error", end).on("close", end);
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    if (typeof address !== "object" || address === null) throw new Error("the proxy has no port");
    holder.proxy = new TcpProxy(server, address.port);
    return holder.proxy;
  }

  /** The server as a client behind this proxy sees it (register and the rest go to the real one). */
  serverBehind(server: LocalProsody): LocalProsody {
    return Object.create(server, { service: { value: `xmpp://127.0.0.1:${this.port}` } }) as LocalProsody;
  }

  /** Closes every connection through the proxy, and refuses new ones for `refuseMs`. */
  cut(refuseMs: number): void {
    this.refusingUntil = Date.now() + refuseMs;
    for (const [a, b] of this.pairs) {
      a.destroy();
      b.destroy();
    }
    this.pairs.clear();
  }

  async stop(): Promise<void> {
    this.cut(0);
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
