import { createServer, type Server } from "node:net";
import { pino, type Logger } from "pino";
import { describe, expect, it } from "vitest";
import { Backoff } from "../../src/xmpp/backoff.js";
import { LOST_CONNECTION_LOG, XmppConnection } from "../../src/xmpp/connection.js";
import { OutageTracker } from "../../src/xmpp/outage.js";

describe("reconnect backoff: exponential, equal jitter, capped", () => {
  it("doubles from the base to the cap, with delays in [ceiling/2, ceiling]", () => {
    const low = new Backoff({ baseMs: 1000, capMs: 30_000, random: () => 0 });
    const high = new Backoff({ baseMs: 1000, capMs: 30_000, random: () => 0.999999 });
    const lows = Array.from({ length: 8 }, () => low.next());
    const highs = Array.from({ length: 8 }, () => high.next());
    expect(lows).toEqual([500, 1000, 2000, 4000, 8000, 15_000, 15_000, 15_000]);
    expect(highs).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000]);
  });

  it("jitters with the injected random source, and starts over after a success", () => {
    const values = [0.5, 0.25];
    const backoff = new Backoff({ baseMs: 1000, capMs: 30_000, random: () => values.shift() ?? 0 });
    expect(backoff.next()).toBe(750); // 500 + 0.5 × 500
    expect(backoff.next()).toBe(1250); // 1000 + 0.25 × 1000
    backoff.reset();
    expect(backoff.next()).toBe(500);
  });

  it("stays finite and capped however long the outage lasts", () => {
    const backoff = new Backoff({ baseMs: 1000, capMs: 30_000, random: () => 1 });
    let last = 0;
    for (let i = 0; i < 10_000; i++) last = backoff.next();
    expect(last).toBe(30_000);
  });
});

describe("an outage: one start, one end with its duration and attempts", () => {
  it("measures with the injected clock and counts attempts; a second loss inside it is not a new outage", () => {
    let now = 1_000_000;
    const outage = new OutageTracker(() => now);
    expect(outage.end()).toBeUndefined();
    expect(outage.begin()).toBe(true);
    expect(outage.begin()).toBe(false);
    now += 500;
    outage.attempt();
    outage.failed("ECONNREFUSED");
    now += 1500;
    outage.attempt();
    expect(outage.end()).toEqual({ durationMs: 2000, attempts: 2, lastError: "ECONNREFUSED" });
    expect(outage.inOutage).toBe(false);
    expect(outage.begin()).toBe(true);
  });
});

/** Every log line, as the JSON object pino writes. */
function capturingLogger(): { log: Logger; lines: Array<{ level: number; msg: string }> } {
  const lines: Array<{ level: number; msg: string }> = [];
  const log = pino({ level: "debug" }, { write: (chunk: string) => void lines.push(JSON.parse(chunk) as { level: number; msg: string }) });
  return { log, lines };
}

describe("a server that cannot be reached at start", () => {
  it("logs one warning, not one per attempt, while it retries with backoff", async () => {
    // A port that accepts nothing: listen, note the port, close.
    const server: Server = createServer();
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as { port: number }).port;
    await new Promise<void>((r) => server.close(() => r()));

    const { log, lines } = capturingLogger();
    const connection = new XmppConnection(
      { account: { service: `xmpp://127.0.0.1:${port}`, domain: "localhost", username: "u", password: "p", resource: "r" }, maxStanzaBytes: 1024, backoff: { baseMs: 10, capMs: 40, random: () => 0 } },
      log,
    );
    const starting = connection.start();
    // Wait for several attempts (each one logs a debug line), however long they take.
    while (lines.filter((l) => l.msg === "connection attempt failed").length < 4) await new Promise((r) => setTimeout(r, 10));
    await connection.stop();
    await starting;
    const warnings = lines.filter((l) => l.level >= 40);
    expect(warnings.map((l) => l.msg)).toEqual(["cannot reach the XMPP server yet; retrying with backoff"]);
    expect(lines.some((l) => l.msg === LOST_CONNECTION_LOG)).toBe(false);
  });
});

describe("a server that resets the socket of a failed attempt", () => {
  it("never makes the dropped client's socket error an uncaught exception", async () => {
    // Answers the stream header with a stream error, then resets: the attempt fails, and the
    // dropped client's closing write meets the reset socket (ECONNRESET or EPIPE).
    const server: Server = createServer((socket) => {
      socket.on("error", () => undefined);
      socket.once("data", () => {
        socket.write(
          "<?xml version='1.0'?><stream:stream xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams' id='s' from='localhost' version='1.0'>" +
            "<stream:error><host-unknown xmlns='urn:ietf:params:xml:ns:xmpp-streams'/></stream:error>",
        );
        socket.resetAndDestroy();
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as { port: number }).port;
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => void uncaught.push(err);
    // vitest's own handler would fail the run on the first one; this test counts them instead.
    const vitestHandlers = process.listeners("uncaughtException");
    process.removeAllListeners("uncaughtException");
    process.on("uncaughtException", onUncaught);
    try {
      const { log, lines } = capturingLogger();
      const connection = new XmppConnection(
        { account: { service: `xmpp://127.0.0.1:${port}`, domain: "localhost", username: "u", password: "p", resource: "r" }, maxStanzaBytes: 1024, backoff: { baseMs: 5, capMs: 10, random: () => 0 } },
        log,
      );
      const starting = connection.start();
      while (lines.filter((l) => l.msg === "connection attempt failed").length < 5) await new Promise((r) => setTimeout(r, 10));
      await connection.stop();
      await starting;
      await new Promise((r) => setTimeout(r, 100));
      expect(uncaught).toEqual([]);
      expect(lines.some((l) => l.msg === "error of a failed connection attempt")).toBe(true);
    } finally {
      process.removeListener("uncaughtException", onUncaught);
      for (const handler of vitestHandlers) process.on("uncaughtException", handler);
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
