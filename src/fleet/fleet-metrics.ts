/**
 * What /metrics shows for an instance of several on one database: its leases (rooms
 * wanted and owned, takeovers, losses by reason) and the process, beside the metrics of
 * each room unit it owns (their coordinators' registries, each sample labelled with its
 * `room`), aggregated into one exposition.
 */
import { AggregatorRegistry, collectDefaultMetrics, Counter, Gauge, Registry } from "prom-client";
import type { LossReason } from "./lease-keeper.js";

/** The figures an instance's leases are read from, at scrape time. */
export interface LeaseSources {
  wanted(): number;
  owned(): number;
}

/** The instance's own metrics; `text(units)` adds the owned units' registries. */
export class FleetMetrics {
  readonly registry = new Registry();
  private readonly takeovers: Counter;
  private readonly losses: Counter<"why">;

  constructor(sources: LeaseSources, options: { processMetrics?: boolean } = {}) {
    const registers = [this.registry];
    new Gauge({
      name: "mfr_lease_rooms_wanted",
      help: "Room units this instance may own (the configured rooms).",
      registers,
      collect() {
        this.set(sources.wanted());
      },
    });
    new Gauge({
      name: "mfr_lease_rooms_owned",
      help: "Room units this instance owns now (0: it stands by).",
      registers,
      collect() {
        this.set(sources.owned());
      },
    });
    this.takeovers = new Counter({ name: "mfr_lease_takeovers_total", help: "Room units this instance took over (claimed, joined, caught up on and restored).", registers });
    this.losses = new Counter({
      name: "mfr_lease_losses_total",
      help: "Room units this instance gave up, by reason (lease ran out, renewal refused, fenced out, database unreachable).",
      labelNames: ["why"],
      registers,
    });
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry });
  }

  /** A unit was taken over (its coordinator started after the claim). */
  tookOver(): void {
    this.takeovers.inc();
  }

  /** A unit was given up, and why. */
  lost(why: LossReason): void {
    this.losses.inc({ why });
  }

  /** The exposition's content type, for the /metrics route. */
  readonly contentType = Registry.PROMETHEUS_CONTENT_TYPE;

  /** The exposition of the instance's metrics and of each owned unit's, labelled by room. */
  async text(units: ReadonlyMap<string, Registry>): Promise<string> {
    const parts = [await this.registry.getMetricsAsJSON()];
    for (const [room, registry] of units) {
      registry.setDefaultLabels({ room });
      parts.push(await registry.getMetricsAsJSON());
    }
    if (parts.length === 1) return this.registry.metrics();
    return AggregatorRegistry.aggregate(parts).metrics();
  }
}
