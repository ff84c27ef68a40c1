/**
 * Retention: archived sessions past the configured age or count go, once at start and then
 * hourly; live ones never. A failed prune is logged and tried again at the next hour.
 */
import type { Logger } from "pino";
import type { Config } from "../config/schema.js";
import type { CoordinatorStore } from "./coordinator-store.js";

const DAY_MS = 24 * 60 * 60 * 1000;
const PRUNE_EVERY_MS = 60 * 60 * 1000;

/** The hourly pruning of the archive, on a timer that never keeps the process alive. */
export class Retention {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: CoordinatorStore,
    private readonly retention: Config["retention"],
    private readonly log: Logger,
    private readonly now: () => number,
  ) {}

  /** Prunes now, and every hour until `stop`. */
  start(): void {
    this.prune();
    this.timer = setInterval(() => this.prune(), PRUNE_EVERY_MS);
    this.timer.unref();
  }

  /** No more pruning (at stop). */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  private prune(): void {
    const failed = (err: unknown): void => this.log.error({ err }, "pruning the archive failed");
    const done = (pruned: number): void => {
      if (pruned > 0) this.log.info({ pruned }, "archived sessions pruned");
    };
    try {
      const pruned = this.store.prune({ maxAgeMs: this.retention.maxAgeDays * DAY_MS, maxCount: this.retention.maxCount, now: this.now() });
      // The shared database prunes asynchronously.
      if (pruned instanceof Promise) pruned.then(done, failed);
      else done(pruned);
    } catch (err) {
      failed(err);
    }
  }
}
