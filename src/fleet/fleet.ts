/**
 * One instance of several coordinators on one PostgreSQL database (docs/operating.md,
 * "Running several coordinators"). It keeps the leases of the room units it may own
 * (fleet/lease-keeper.ts over store/pg/room-lease.ts) and runs one coordinator per unit it
 * owns, on that unit's part of the database (store/pg/pg-room-store.ts).
 *
 * The rules it keeps:
 *  - Takeover: on `onOwned(room, epoch)` it loads the unit's state, starts the unit's
 *    coordinator (which joins the rooms, catches up on what they said while nobody owned
 *    them, replays the live sessions from the database, sends what a crash kept from going
 *    out unless the room's history shows it went, and re-arms the deadlines), and logs
 *    "took over room".
 *  - Speaking: the unit's coordinator sends a message only while `keeper.holds(room)` is
 *    this epoch, read at the moment of sending (a paused process that wakes past its
 *    deadline says nothing); every write is fenced by the epoch in the database.
 *  - Loss: on `onLost` (lease ran out, renewal refused, fenced out, database unreachable)
 *    or the first failed write, the unit's coordinator is stopped: it leaves the rooms.
 *  - Hand-over (SIGTERM, `stop`): it stops speaking, stops each unit's coordinator (its
 *    sends settle, it leaves the rooms) and lets every write reach the database while the
 *    lease is still its own, then releases the leases (another instance claims them at its
 *    next renewal period); logs "handed over room".
 *  - One transition at a time per unit: a takeover waits for the previous loss's stop.
 *  - The web view (when `mfr:httpPort` is set) shows every session in the database, of every
 *    instance (./database-view.ts, ./fleet-http.ts), beside /readyz, /metrics and /healthz:
 *    a unit's sessions are read from its coordinator while this instance owns it (registered
 *    once the coordinator has started, unregistered first thing when it stops), from the
 *    database otherwise. The view reads through a small pool of its own, so its reads never
 *    hold up a lease renewal or a write.
 */
import type { Logger } from "pino";
import type pg from "pg";
import type { Registry } from "prom-client";
import { writeIdleLimitMs } from "../config/lease-timing.js";
import { maskedDatabaseUrl } from "../config/shared-settings.js";
import type { Config } from "../config/schema.js";
import type { Coordinator } from "../coordinator/coordinator.js";
import { LaunchedCoordinator, modelWorkerOf } from "../launch/launched-coordinator.js";
import type { ModelWorker } from "../model-workers/model-worker.js";
import type { Readiness } from "../ops/readiness.js";
import { operationsRoutes } from "../ops/routes.js";
import { LeaseKeeper, type LeaseKeeperEvent, type LossReason } from "./lease-keeper.js";
import { migrate } from "../store/pg/migrations.js";
import { KnownSessionIds } from "../store/pg/known-session-ids.js";
import { PgRoomStore } from "../store/pg/pg-room-store.js";
import { openPool } from "../store/pg/pool.js";
import { RoomLeases } from "../store/pg/room-lease.js";
import { XmppConnection } from "../xmpp/connection.js";
import { LINGUE_FEATURES } from "../base/vocab.js";
import { answerDiscoveryAndPing } from "../xmpp/service-discovery.js";
import { serveFleetWeb, type FleetWebServer } from "./fleet-http.js";
import { stopInsideWriteHook } from "./stop-inside-write.js";
import { FleetMetrics } from "./fleet-metrics.js";
import { defaultInstanceId, roomUnitsOf, type RoomUnit } from "./room-units.js";

/** Connections of the leases' own pool: a claim pass and the renewals, none of which waits on a lock. */
const LEASE_CONNECTIONS = 3;

/** A unit this instance owns now: its coordinator and its part of the database. */
interface Owned {
  readonly epoch: number;
  /** Started and stopped as one: the coordinator with its model workers. */
  readonly launched: LaunchedCoordinator;
  readonly coordinator: Coordinator;
  readonly store: PgRoomStore;
  /** Monotonic instant of the claim, for the takeover's duration. */
  readonly claimedAt: number;
}

/** How a fleet instance is run. */
export interface FleetOptions {
  /** The configuration, with `shared.database` set. */
  config: Config;
  log: Logger;
  /** Wall clock for the sessions. Default Date.now. */
  now?: () => number;
}

/** What /readyz answers for an instance: owner of some units, or standing by. */
export interface FleetReadiness extends Readiness {
  role: "owner" | "standby";
  instance: string;
  /** The units owned now. */
  rooms: string[];
}

/** An instance of several on one database (see the module comment). */
export class Fleet {
  readonly instanceId: string;
  readonly metrics: FleetMetrics;
  private readonly config: Config;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly units: Map<string, RoomUnit>;
  /** The units' stores: loads at takeover and fenced writes. */
  private readonly pool: pg.Pool;
  /**
   * Claims, renewals, releases and the reachability probe, on connections of their own: a
   * renewal never waits for a connection behind the writes, and a lease statement that
   * waits on a lock longer than a renewal period fails instead of holding its connection.
   */
  private readonly leasePool: pg.Pool;
  private readonly keeper: LeaseKeeper;
  /**
   * One model worker pool for every unit this instance owns: threads grow with the work, not
   * with the rooms (each unit's coordinator has a share of it, model-workers/model-share.ts).
   */
  private readonly models: ModelWorker;
  /** The database's session ids, read once and then on from the last read at each takeover (one set for every unit). */
  private readonly knownIds: KnownSessionIds;
  private readonly owned = new Map<string, Owned>();
  /** The tail of each unit's takeovers and stops, run one after another. */
  private readonly transitions = new Map<string, Promise<void>>();
  /** The web view with every session in the database, on its own pool (./fleet-http.ts). */
  private web: FleetWebServer | undefined;
  /** Asks the database whether it answers, every renewal period, for /readyz. */
  private probeTimer: NodeJS.Timeout | undefined;
  private stopping = false;
  private databaseReachable = true;
  /** The test hook of MFR_TEST_STOP_INSIDE_WRITE (./stop-inside-write.ts); undefined outside the tests. */
  private readonly insideWrite: ((writes: readonly string[]) => void) | undefined;
  /**
   * The instance's own connection to the XMPP server, in no room: a standby is known to be
   * able to reach the server (and says so on /readyz) before it has to take a room over.
   * Its presence has a negative priority, so no 1:1 chat is routed to it.
   */
  private readonly standby: XmppConnection;

  constructor(options: FleetOptions) {
    const { config, log } = options;
    const database = config.shared.database;
    if (database === null) throw new TypeError("a fleet instance needs mfr:database (or MFR_DATABASE_URL)");
    this.config = config;
    this.now = options.now ?? Date.now;
    this.instanceId = config.shared.instanceId ?? defaultInstanceId();
    this.log = log.child({ instance: this.instanceId });
    this.units = new Map(roomUnitsOf(config, this.instanceId).map((unit) => [unit.key, unit]));
    this.insideWrite = stopInsideWriteHook(process.env.MFR_TEST_STOP_INSIDE_WRITE, this.log);
    const { leaseMs, renewMs, marginMs, maxRoomsPerInstance } = config.shared;
    // A transaction of ours whose client fell silent (this process paused inside a write) is
    // ended by the database before our lease can run out, so it cannot hold the room.
    const idleInTransactionMs = writeIdleLimitMs(config.shared);
    this.pool = openPool({
      url: database,
      applicationName: `mfr-coordinator ${this.instanceId}`.slice(0, 63),
      limits: { idleInTransactionMs },
      onIdleError: (err) => this.log.warn({ err: err.message }, "an idle connection to the database broke; the pool opens a new one"),
    });
    this.leasePool = openPool({
      url: database,
      applicationName: `mfr-coordinator ${this.instanceId} leases`.slice(0, 63),
      max: LEASE_CONNECTIONS,
      connectionTimeoutMs: renewMs,
      limits: { idleInTransactionMs, lockTimeoutMs: renewMs, statementTimeoutMs: renewMs },
      onIdleError: (err) => this.log.warn({ err: err.message }, "an idle connection for the leases broke; the pool opens a new one"),
    });
    this.standby = new XmppConnection(
      { account: { ...config.xmpp, resource: `${config.xmpp.resource}-${this.instanceId}` }, maxStanzaBytes: config.limits.maxStanzaBytes, presencePriority: -1, maySpeak: () => false },
      this.log.child({ line: "standby" }),
    );
    // The units run on the shared database, so the threads write no blobs (no store path).
    this.models = modelWorkerOf(config, undefined, () => undefined);
    this.knownIds = new KnownSessionIds(this.pool);
    this.metrics = new FleetMetrics({ wanted: () => this.units.size, owned: () => this.owned.size });
    this.keeper = new LeaseKeeper({
      owner: this.instanceId,
      rooms: [...this.units.keys()],
      leases: new RoomLeases(this.leasePool),
      leaseMs,
      renewMs,
      marginMs,
      ...(maxRoomsPerInstance !== null ? { maxRooms: maxRoomsPerInstance } : {}),
      onOwned: (room, epoch) => this.serially(room, () => this.takeOver(room, epoch)),
      onLost: (room, why) => this.lose(room, why),
      onEvent: (event) => this.noteLeaseEvent(event),
    });
  }

  /** Brings the schema up to date, serves the web view with /readyz and /metrics, and starts claiming rooms. */
  async start(): Promise<void> {
    const { config } = this;
    const database = maskedDatabaseUrl(config.shared.database ?? "");
    const schema = await migrate(this.pool);
    this.log.info({ database, schema: schema.to, applied: schema.applied }, "the shared database is ready");
    if (config.http.port !== null) await this.startWebView(config.http.port);
    answerDiscoveryAndPing(this.standby, { category: "client", type: "bot", name: config.nick }, LINGUE_FEATURES);
    // Connected in the background, with the connection's own backoff; rooms are claimed meanwhile.
    void this.standby.start().catch((err: unknown) => this.log.error({ err }, "the standby connection to the XMPP server failed"));
    this.keeper.start();
    this.probeTimer = setInterval(() => {
      this.leasePool.query("SELECT 1").then(
        () => (this.databaseReachable = true),
        () => (this.databaseReachable = false),
      );
    }, config.shared.renewMs);
    this.probeTimer.unref();
    this.log.info({ rooms: [...this.units.keys()], maxRooms: config.shared.maxRoomsPerInstance ?? this.units.size, lease: { ms: config.shared.leaseMs, renewMs: config.shared.renewMs, marginMs: config.shared.marginMs } }, "standing by");
  }

  /**
   * Hands every owned unit over: stops speaking, lets the writes settle, releases the
   * leases, leaves the rooms; then closes the database pool.
   */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    clearInterval(this.probeTimer);
    // A takeover under way finishes first (it then stops with the others).
    await Promise.all(this.transitions.values());
    const handing = [...this.owned.entries()];
    // Each unit's coordinator stops while the lease is still ours (the keeper renews on):
    // its sends settle and are recorded, it leaves the rooms, and every write it queued
    // (inputs, sent records, presence, evidence) reaches the database before the release,
    // so the next owner's load sees all of it and nothing is sent twice. What the rooms say
    // between our leaving and the next owner's joining is in their history.
    await Promise.all(handing.map(([room, owned]) => this.stopUnit(room, owned)));
    await this.keeper.stop();
    for (const [room] of handing) this.log.info({ room }, "handed over room");
    await this.web?.close();
    await this.standby.stop().catch((err: unknown) => this.log.warn({ err }, "closing the standby connection failed"));
    await this.models.close();
    await this.pool.end().catch((err: unknown) => this.log.warn({ err }, "closing the database pool failed"));
    await this.leasePool.end().catch((err: unknown) => this.log.warn({ err }, "closing the leases' database pool failed"));
  }

  /** Where the web view listens (`http://127.0.0.1:<port>/`), or undefined when it is off. */
  get webUrl(): string | undefined {
    return this.web?.view.url;
  }

  /** Owner of some units (and ready in each), or standing by (connected to the database). */
  readiness(): FleetReadiness {
    const rooms = [...this.owned.keys()];
    const reasons: string[] = [];
    if (!this.databaseReachable) reasons.push("the shared database cannot be reached");
    if (!this.standby.online) reasons.push("not connected to the XMPP server");
    const warnings: string[] = [];
    for (const [room, owned] of this.owned) {
      const unit = owned.coordinator.readiness();
      for (const reason of unit.reasons) reasons.push(`${room}: ${reason}`);
      warnings.push(...(unit.warnings ?? []));
    }
    return { ready: reasons.length === 0, reasons, ...(warnings.length > 0 ? { warnings } : {}), role: rooms.length > 0 ? "owner" : "standby", instance: this.instanceId, rooms };
  }

  /** Runs `step` after the unit's previous takeover or stop has finished. */
  private serially(room: string, step: () => Promise<void>): void {
    const previous = this.transitions.get(room) ?? Promise.resolve();
    const next = previous.then(step).catch((err: unknown) => this.log.error({ err, room }, "a takeover or hand-over failed"));
    this.transitions.set(room, next);
  }

  private async takeOver(room: string, epoch: number): Promise<void> {
    const unit = this.units.get(room);
    if (!unit || this.stopping || this.keeper.holds(room) !== epoch) return;
    const claimedAt = performance.now();
    // `unit`, not `room`: the coordinator's own lines carry a `room` of their own (a phase room, say).
    const log = this.log.child({ unit: room });
    let store: PgRoomStore;
    try {
      store = await PgRoomStore.open({
        pool: this.pool,
        unit: room,
        rooms: unit.rooms,
        epoch,
        log,
        now: this.now,
        known: this.knownIds,
        onFailure: (err) => this.keeper.writeFailed(room, epoch, err),
        ...(this.insideWrite ? { insideWrite: this.insideWrite } : {}),
      });
    } catch (err) {
      log.error({ err, room, epoch }, "could not load the room's sessions from the shared database; giving the room up");
      this.keeper.writeFailed(room, epoch, err);
      return;
    }
    const launched = new LaunchedCoordinator({
      config: unit.config,
      log,
      now: this.now,
      store,
      sharedModels: this.models,
      fleet: { maySpeak: () => !this.stopping && this.keeper.holds(room) === epoch },
    });
    const { coordinator } = launched;
    const owned: Owned = { epoch, launched, coordinator, store, claimedAt };
    this.owned.set(room, owned);
    try {
      await launched.start();
    } catch (err) {
      log.error({ err, room, epoch }, "could not start in the room; giving it up");
      this.keeper.writeFailed(room, epoch, err);
      return;
    }
    if (this.owned.get(room) !== owned) return;
    this.web?.sessions.addOwned(room, coordinator.sessions);
    this.metrics.tookOver();
    log.info(
      { room, epoch, why: epoch === 1 ? "the room had no owner yet" : "the previous owner's lease ended (released, expired or lost)", restored: coordinator.sessions.liveSessions().length, ms: Math.round(performance.now() - claimedAt) },
      "took over room",
    );
  }

  /** The lease is gone: the unit's coordinator (already silent: maySpeak reads the lease) leaves. */
  private lose(room: string, why: LossReason): void {
    this.metrics.lost(why);
    const owned = this.owned.get(room);
    this.log.warn({ room, why, epoch: owned?.epoch }, "gave up room");
    if (!owned) return;
    this.serially(room, () => this.stopUnit(room, owned));
  }

  private async stopUnit(room: string, owned: Owned): Promise<void> {
    this.web?.sessions.removeOwned(room, owned.coordinator.sessions);
    if (this.owned.get(room) === owned) this.owned.delete(room);
    try {
      await owned.launched.stop();
    } catch (err) {
      this.log.warn({ err, room }, "leaving the room did not finish cleanly");
    }
    await owned.store.close();
  }

  /**
   * The web view over every session in the database, with the operations endpoints; a port
   * that cannot be bound, or an address beyond loopback without a token, stops the start.
   */
  private async startWebView(port: number): Promise<void> {
    this.web = await serveFleetWeb({
      config: this.config,
      instanceId: this.instanceId,
      port,
      rooms: () => [...this.owned.values()].flatMap((owned) => owned.coordinator.absences.rooms()),
      operations: operationsRoutes({
        metrics: { contentType: this.metrics.contentType, text: () => this.metrics.text(this.unitRegistries()) },
        readiness: () => this.readiness(),
      }),
      now: this.now,
      log: this.log,
    });
  }

  private noteLeaseEvent(event: LeaseKeeperEvent): void {
    switch (event.kind) {
      case "claimed":
        this.databaseReachable = true;
        this.log.info({ room: event.room, epoch: event.epoch }, "claimed the room's lease");
        break;
      case "claim-failed":
        this.databaseReachable = false;
        this.log.warn({ rooms: event.rooms.length, first: event.rooms[0], why: event.why }, "could not ask the shared database for the free rooms' leases");
        break;
      case "renewal-failed":
        if (event.why === "database unreachable") this.databaseReachable = false;
        this.log.warn({ room: event.room, epoch: event.epoch, why: event.why, detail: event.detail }, "the lease could not be renewed");
        break;
      case "released":
        this.log.info({ room: event.room, epoch: event.epoch, ok: event.ok, detail: event.detail }, "released the room's lease");
        break;
      case "lost":
        break;
    }
  }

  private unitRegistries(): Map<string, Registry> {
    return new Map([...this.owned].map(([room, owned]) => [room, owned.coordinator.metrics.registry]));
  }
}
