import { createServer, type Server, type Socket } from "node:net";
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

/**
 * Starts a connection to the loopback port, waits until `count` attempts have failed (each
 * logs a debug line), however long they take, stops it, and returns its log lines.
 */
async function failedAttempts(port: number, count: number, backoff: { baseMs: number; capMs: number }): Promise<Array<{ level: number; msg: string }>> {
  const { log, lines } = capturingLogger();
  const connection = new XmppConnection(
    { account: { service: `xmpp://127.0.0.1:${port}`, domain: "localhost", username: "u", password: "p", resource: "r" }, maxStanzaBytes: 1024, backoff: { ...backoff, random: () => 0 } },
    log,
  );
  const starting = connection.start();
  while (lines.filter((l) => l.msg === "connection attempt failed").length < count) await new Promise((r) => setTimeout(r, 10));
  await connection.stop();
  await starting;
  return lines;
}

describe("a server that cannot be reached at start", () => {
  it("logs one warning, not one per attempt, while it retries with backoff", async () => {
    // A port that accepts nothing: listen, note the port, close.
    const server: Server = createServer();
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as { port: number }).port;
    await new Promise<void>((r) => server.close(() => r()));

    const lines = await failedAttempts(port, 4, { baseMs: 10, capMs: 40 });
    const warnings = lines.filter((l) => l.level >= 40);
    expect(warnings.map((l) => l.msg)).toEqual(["cannot reach the XMPP server yet; retrying with backoff"]);
    expect(lines.some((l) => l.msg === LOST_CONNECTION_LOG)).toBe(false);
  });
});

describe("a server that resets the socket of a connection attempt", () => {
  const STREAM_ERROR =
    "<?xml version='1.0'?><stream:stream xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams' id='s' from='localhost' version='1.0'>" +
    "<stream:error><host-unknown xmlns='urn:ietf:params:xml:ns:xmpp-streams'/></stream:error>";

  it("never makes the dropped client's socket error an uncaught exception", async () => {
    // Answers the stream header with a stream error, then resets: the attempt fails, and the
    // dropped client's closing write meets the reset socket (ECONNRESET or EPIPE).
    const escaped = await attemptsAgainst((socket) => {
      socket.write(STREAM_ERROR);
      socket.resetAndDestroy();
    });
    expect(escaped.errors).toEqual([]);
    expect(escaped.lines.some((l) => l.msg === "error of a failed connection attempt")).toBe(true);
  });

  it("leaves no rejection unhandled when the socket is reset before the stream opens", async () => {
    // Resets without a word: the opening fails with ECONNRESET, and the library's start() would
    // leave its promise of "online" rejected by the same error with no handler, every time.
    const escaped = await attemptsAgainst((socket) => socket.resetAndDestroy());
    expect(escaped.errors).toEqual([]);
    expect(escaped.lines.filter((l) => l.msg === "connection attempt failed").length).toBeGreaterThanOrEqual(5);
  });
});

/**
 * Starts a connection against a server that answers its first bytes with `answer`, lets five
 * attempts fail, stops it, and returns what escaped: uncaught exceptions and unhandled
 * rejections (vitest's own handlers would fail the run on the first; these are counted instead).
 */
async function attemptsAgainst(answer: (socket: Socket) => void): Promise<{ errors: unknown[]; lines: Array<{ level: number; msg: string }> }> {
  const server: Server = createServer((socket) => {
    socket.on("error", () => undefined);
    socket.once("data", () => answer(socket));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  const errors: unknown[] = [];
  const onEscaped = (err: unknown) => void errors.push(err);
  const vitestUncaught = process.listeners("uncaughtException");
  const vitestUnhandled = process.listeners("unhandledRejection");
  process.removeAllListeners("uncaughtException").on("uncaughtException", onEscaped);
  process.removeAllListeners("unhandledRejection").on("unhandledRejection", onEscaped);
  try {
    const lines = await failedAttempts(port, 5, { baseMs: 5, capMs: 10 });
    await new Promise((r) => setTimeout(r, 100));
    return { errors, lines };
  } finally {
    process.removeListener("uncaughtException", onEscaped).removeListener("unhandledRejection", onEscaped);
    for (const handler of vitestUncaught) process.on("uncaughtException", handler);
    for (const handler of vitestUnhandled) process.on("unhandledRejection", handler);
    await new Promise<void>((r) => server.close(() => r()));
  }
}
