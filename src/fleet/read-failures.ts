/**
 * How the fleet's web view (database-view.ts) reports that it cannot read the shared
 * database: a failure is logged once, then at most every FAILURE_LOG_EVERY_MS while it
 * lasts, and the first read that works again says so. The view itself never fails for it:
 * it keeps showing what it read last.
 */
import type { Logger } from "pino";
import type { SessionId } from "../session/types.js";

/** While the database cannot be read, the failure is logged at most this often. */
const FAILURE_LOG_EVERY_MS = 60_000;

/** Whether the view's reads are failing, and the log of it (see the module comment). */
export class ReadFailures {
  private failing = false;
  private lastFailureLogged = -Infinity;

  constructor(private readonly log: Logger) {}

  /** A read failed (a refresh, or the load of one session's page). */
  failed(err: unknown, sessionId?: SessionId): void {
    const now = performance.now();
    if (!this.failing || now - this.lastFailureLogged >= FAILURE_LOG_EVERY_MS) {
      this.lastFailureLogged = now;
      this.log.warn({ err, ...(sessionId !== undefined ? { sessionId } : {}) }, "the web view could not read the shared database; it shows what it read last");
    }
    this.failing = true;
  }

  /** A refresh worked: logged once if reads were failing. */
  recovered(): void {
    if (!this.failing) return;
    this.failing = false;
    this.log.info("the web view reads the shared database again");
  }
}
