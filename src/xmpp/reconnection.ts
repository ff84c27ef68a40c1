/**
 * When the connection tries the XMPP server again, and what it says of it. The first
 * connection is retried until it succeeds, because operators often start us before the
 * server, except for a refused login, which retrying will not mend. A lost connection is
 * tried again after a backoff (backoff.ts) instead of the library's attempt every second,
 * with one attempt pending at most; and an outage (outage.ts) gives one log line when it
 * begins and one when it ends, none per attempt.
 */
import type { Client } from "@xmpp/client";
import type { Logger } from "pino";
import { Backoff, DEFAULT_BACKOFF, type BackoffSettings } from "./backoff.js";
import { AuthenticationError, describeError, isAuthFailure } from "./connection-errors.js";
import { OutageTracker } from "./outage.js";

/** The one warning an outage gives when it begins (tests look for it). */
export const LOST_CONNECTION_LOG = "lost the connection to the XMPP server; reconnecting with backoff";

/** Who is being connected, and how the attempts are paced. */
export interface ReconnectionSettings {
  /** The server's address, for the log. */
  service: string;
  /** The account as `username@domain`, for the refused login's message. */
  login: string;
  /** Delays between attempts; default 1 s doubling to 30 s, jittered. */
  backoff?: Partial<BackoffSettings>;
  /** Clock for outage durations (tests pass a fake one). */
  now?: () => number;
}

/** What the reconnection reads of the connection it serves, and what it tells it. */
export interface ReconnectionHost {
  /** The connection is being stopped: nothing is tried again. */
  stopping(): boolean;
  /** Whether `xmpp` is still the connection's client: a replaced one's events are stale. */
  isCurrent(xmpp: Client): boolean;
  /** Whether a stream was ever up; before that, `connectFirst` does its own retrying. */
  everOnline(): boolean;
  /** The connection was lost, the first time in an outage (the rooms are told). */
  lost(): void;
}

/** The reconnection policy of one connection: retries, their backoff, and the outage they belong to. */
export class Reconnection {
  private readonly backoff: Backoff;
  private readonly outage: OutageTracker;
  private timer: NodeJS.Timeout | undefined;
  private attemptInFlight = false;

  constructor(
    private readonly settings: ReconnectionSettings,
    private readonly log: Logger,
    private readonly host: ReconnectionHost,
  ) {
    this.backoff = new Backoff({ ...DEFAULT_BACKOFF, ...settings.backoff });
    this.outage = new OutageTracker(settings.now ?? Date.now);
  }

  /**
   * Connects for the first time: `attempt` connects once (cleaning up after itself) and
   * throws when it could not. A refused login rejects at once with an AuthenticationError;
   * an unreachable server is tried again after the backoff until the connection stops.
   */
  async connectFirst(attempt: () => Promise<void>): Promise<void> {
    while (!this.host.stopping()) {
      const number = this.outage.inOutage ? this.outage.attempt() : 1;
      try {
        await attempt();
        return;
      } catch (err) {
        // Stopped while connecting: the failure is ours, not the server's.
        if (this.host.stopping()) return;
        if (isAuthFailure(err)) {
          throw new AuthenticationError(`the server refused the login of ${this.settings.login} (${describeError(err)}); check the username and password`);
        }
        // One line when the server cannot be reached, one when it can (online), none per attempt.
        if (this.outage.begin()) {
          this.outage.attempt();
          this.log.warn({ service: this.settings.service, err: describeError(err) }, "cannot reach the XMPP server yet; retrying with backoff");
        }
        this.outage.failed(describeError(err));
        const wait = this.backoff.next();
        this.log.debug({ attempt: number, retryInMs: wait, err: describeError(err) }, "connection attempt failed");
        await delay(wait);
      }
    }
  }

  /** A stream is up: the backoff starts over, and the outage it ends, if any, is logged with its figures. */
  online(): void {
    this.backoff.reset();
    const outage = this.outage.end();
    if (outage) {
      this.log.info({ outageMs: outage.durationMs, attempts: outage.attempts, lastError: outage.lastError }, "connection to the XMPP server is back");
    }
  }

  /**
   * The socket is gone: the first time in an outage, say so and tell the connection; then try
   * again after the backoff. A failed attempt ends here too, and schedules the next one.
   */
  disconnected(xmpp: Client): void {
    // Before the first connection, connectFirst retries on its own.
    if (this.host.stopping() || !this.host.isCurrent(xmpp) || !this.host.everOnline()) return;
    if (this.outage.begin()) {
      this.log.warn({ service: this.settings.service }, LOST_CONNECTION_LOG);
      this.host.lost();
    }
    this.schedule(xmpp);
  }

  /** An error from the client: during an outage (or before the first connection) it is only kept for the line that ends it. */
  error(err: unknown): void {
    if (this.host.stopping()) return;
    // During an outage every attempt fails the same way: kept for the line that ends it.
    // Before the first connection, connectFirst reports the failure (or the refused login) itself.
    if (this.outage.inOutage || !this.host.everOnline()) {
      this.outage.failed(describeError(err));
      this.log.debug({ err: describeError(err) }, "XMPP connection error during an outage");
      return;
    }
    this.log.warn({ err: describeError(err) }, "XMPP connection error");
  }

  /** The connection stops: the pending attempt, if any, is called off. */
  stop(): void {
    clearTimeout(this.timer);
  }

  /** One pending attempt at most: a failure's error and its disconnect must not schedule two. */
  private schedule(xmpp: Client): void {
    if (this.host.stopping() || this.timer !== undefined || this.attemptInFlight) return;
    const wait = this.backoff.next();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.reconnect(xmpp, wait);
    }, wait);
  }

  private async reconnect(xmpp: Client, waited: number): Promise<void> {
    if (this.host.stopping() || !this.host.isCurrent(xmpp) || xmpp.status !== "disconnect") return;
    const attempt = this.outage.attempt();
    this.log.debug({ attempt, afterMs: waited }, "reconnecting to the XMPP server");
    this.attemptInFlight = true;
    let failed = false;
    try {
      // Resolves once the stream is open; authentication and binding follow, ending in `online`.
      await xmpp.reconnect.reconnect();
    } catch (err) {
      failed = true;
      this.outage.failed(describeError(err));
    } finally {
      this.attemptInFlight = false;
    }
    if (this.host.stopping() || !failed) return;
    // The status moved on while the attempt ran; read it afresh.
    const status: string = xmpp.status;
    if (status === "disconnect") this.schedule(xmpp);
    // A server that accepted the socket but never answered leaves it half open: close it,
    // and its disconnect schedules the next attempt.
    else if (status !== "disconnecting" && status !== "online") void xmpp.disconnect().catch(() => undefined);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
