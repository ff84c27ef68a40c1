/**
 * The entry: makes the coordinator's parts, wires each to the parts it needs, and starts and
 * stops them in order. It decides nothing about a message itself, and nothing calls back into
 * it while it runs: the catch-up registers itself with the rooms and the pipeline, and answers
 * go out through the replies. The model worker threads and the web view are given to it or
 * put around it by whoever runs it (src/launch/).
 */
import type { Logger } from "pino";
import type { Config } from "../config/schema.js";
import { OurRooms } from "../config/our-rooms.js";
import { LINGUE_FEATURES } from "../base/vocab.js";
import { BatchedEvidence } from "../agent-choice/evidence-batch.js";
import type { AgentChooser } from "../agent-choice/agent-chooser.js";
import { Absences } from "../catch-up/absences.js";
import { RoomCatchUp } from "../catch-up/catch-up.js";
import { commandWording } from "../commands/wording.js";
import type { CoordinatorStore } from "../host/coordinator-store.js";
import { MemoryHeardLog } from "../host/heard.js";
import type { ModelPool } from "../host/model-service.js";
import { Retention } from "../host/retention.js";
import type { SessionHost } from "../host/session-host.js";
import { InboundPipeline } from "../inbound/pipeline.js";
import { Replies } from "../inbound/replies.js";
import { UntilBack } from "../inbound/sent-while-away.js";
import { OperationsMetrics } from "../ops/metrics.js";
import { readinessOf, type Readiness } from "../ops/readiness.js";
import { SessionMetrics } from "../ops/session-metrics.js";
import { XmppConnection } from "../xmpp/connection.js";
import { DirectLine } from "../xmpp/direct-line.js";
import type { KeepAliveTiming, Periodic } from "../xmpp/keep-alive.js";
import { Rooms } from "../xmpp/rooms.js";
import { answerDiscoveryAndPing } from "../xmpp/service-discovery.js";
import { bareJid } from "../xmpp/stanza.js";
import { chooserOf, roomChecksOf, sessionHostOf } from "./parts.js";
import { followTheConnection, followTheRooms } from "./room-events.js";

/** What a coordinator is made with. */
export interface CoordinatorOptions {
  config: Config;
  log: Logger;
  now?: () => number;
  /** The durable store (SQLite, or a room unit's part of PostgreSQL); opened by the caller so that a bad database stops the start cleanly. */
  store?: CoordinatorStore;
  /** The model work (model-workers/model-worker.ts, made by src/launch/); the coordinator warms it at start and closes it at stop. */
  models: ModelPool;
  /** How often both connections check in with the server and the rooms (keep-alive.ts); tests shorten it. */
  keepAlive?: Partial<KeepAliveTiming>;
  /**
   * One instance of several on one database, for one room unit it owns (src/fleet/): it
   * speaks only while `maySpeak` says so (its direct line too), and its room connection
   * takes no 1:1 chat to the account's bare JID (negative priority): that goes to the
   * direct line, which only the primary unit's coordinator has (fleet/room-units.ts).
   */
  fleet?: { maySpeak: () => boolean };
}

/** The coordinator: its parts, made and started in order; every inbound stanza goes through the pipeline. */
export class Coordinator {
  readonly connection: XmppConnection;
  /** 1:1 chat with people, on a connection of its own (`xmpp:directLine`, on by default). */
  readonly directLine: DirectLine | undefined;
  readonly rooms: Rooms;
  readonly chooser: AgentChooser;
  readonly sessions: SessionHost;
  /** What /metrics shows (src/ops/): fed by the session steps, the refusals and the connection. */
  readonly metrics: OperationsMetrics;
  /** What the rooms said while we were away, taken in at each join (catch-up/catch-up.ts). */
  readonly catchUp: RoomCatchUp;
  /** Whether the rooms keep agents' protocol messages, and absences they may not cover (catch-up/absences.ts). */
  readonly absences: Absences;
  /** Every inbound stanza goes through it: dispatch, then admit, read, identify and route (src/inbound/). */
  readonly pipeline: InboundPipeline;
  /** Where answers leave: the room, or 1:1 on the line the question came on (inbound/replies.ts). */
  readonly replies: Replies;
  private readonly ourRooms: OurRooms;
  /** Agent evidence on its way to the store, a batch at a time. */
  private readonly evidence: BatchedEvidence | undefined;
  private readonly retention: Retention | undefined;
  private readonly roomChecks: Periodic;
  /** 1:1 messages our server kept for us while we were away wait here until the rooms are caught up on. */
  private readonly untilBack = new UntilBack();
  private restored = false;
  private stopped = false;

  constructor(private readonly options: CoordinatorOptions) {
    const { config, log, store, models, fleet } = options;
    const now = options.now ?? Date.now;
    const ourRooms = (this.ourRooms = new OurRooms(config));
    // Each connection's lines say which it is ("room", "direct"): an outage of one is not one of the other.
    const connection = (this.connection = new XmppConnection(
      { account: config.xmpp, maxStanzaBytes: config.limits.maxStanzaBytes, ...(fleet ? { maySpeak: fleet.maySpeak, presencePriority: -1 } : {}) },
      log.child({ line: "room" }),
    ));
    const rooms = (this.rooms = new Rooms(connection, log, { subjectOfCreatedRoom: (nick) => commandWording.roomSubject(nick) }));
    this.directLine = config.xmpp.directLine ? new DirectLine(config.xmpp, config.limits.maxStanzaBytes, log.child({ line: "direct" }), options.keepAlive, fleet?.maySpeak) : undefined;
    this.roomChecks = roomChecksOf(connection, rooms, options.keepAlive);
    this.evidence = store ? new BatchedEvidence(store, log) : undefined;
    this.retention = store ? new Retention(store, config.retention, log, now) : undefined;
    const chooser = (this.chooser = chooserOf(config, log, now, connection, ourRooms, this.evidence));
    // Gauges are read at scrape time, so the parts they read may be made after this.
    const directLine = this.directLine;
    const metrics = (this.metrics = new OperationsMetrics(
      {
        liveSessions: () => sessions.liveSessions().length,
        queuedModelJobs: () => models.queued,
        connected: () => connection.online,
        ...(directLine ? { directLineConnected: () => directLine.online } : {}),
      },
      // One of several units of an instance: the process's own metrics are the instance's (fleet/fleet-metrics.ts).
      fleet ? { processMetrics: false } : {},
    ));
    const sessions = (this.sessions = sessionHostOf({ config, log, now, store, connection, models, chooser, refused: (reason) => metrics.refused(reason) }));
    sessions.onStep(new SessionMetrics(metrics).take);
    const replies = (this.replies = new Replies({ connection, directLine, log, isRoom: (jid) => rooms.isRoom(jid), rooms: { primary: config.room, log: config.logRoom } }));
    const heard = store ?? new MemoryHeardLog();
    this.absences = new Absences({ rooms: ourRooms, log, sessions });
    const ownBareJid = (): string | undefined => (connection.jid ? bareJid(connection.jid) : undefined);
    const readonlyStore = (): boolean => store?.isReadonly ?? false;
    this.pipeline = new InboundPipeline({ config, log, now, rooms, ownBareJid, hasDirectLine: !!directLine, heard, readonlyStore, ourRooms, sessions, chooser, metrics, outlet: replies, untilBack: this.untilBack });
    this.catchUp = new RoomCatchUp({ heard, log, now, ourRooms, rooms, inbound: this.pipeline, sessions, replies, untilBack: this.untilBack, metrics, absences: this.absences });
  }

  /** Connected, in every room we stay in, and the store takes writes; or why not. */
  readiness(): Readiness {
    return readinessOf({
      connected: this.connection.online,
      rooms: this.rooms.roomJids().map((jid) => ({ jid, joined: this.rooms.isJoined(jid) })),
      storeProblem: this.options.store?.writeProblem(),
      keeping: this.absences.rooms(),
    });
  }

  /**
   * Rebuilds the sessions that were live when the process stopped, before any new input; the
   * deadlines wait until the rooms are caught up on (an answer may be waiting there). Once;
   * `start` does it when its runner has not (src/launch/ does, to start the web view between).
   */
  restore(): void {
    if (this.restored) return;
    this.restored = true;
    this.sessions.holdDeadlines();
    const { store, log } = this.options;
    if (!store) return;
    const restored = this.sessions.restore(store.liveEvents());
    if (restored.events > 0) log.info(restored, "sessions restored from the durable log");
    this.retention?.start();
  }

  /** Restores the sessions, joins the rooms and connects; the direct line last. */
  async start(): Promise<void> {
    const { config, log, models } = this.options;
    this.restore();
    const identity = { category: "client", type: "bot", name: config.nick };
    answerDiscoveryAndPing(this.connection, identity, LINGUE_FEATURES);
    if (this.directLine) answerDiscoveryAndPing(this.directLine.xmpp, identity, LINGUE_FEATURES);
    followTheConnection({ connection: this.connection, rooms: this.rooms, catchUp: this.catchUp, metrics: this.metrics });
    this.pipeline.listenTo(this.connection);
    followTheRooms({ rooms: this.rooms, ourRooms: this.ourRooms, log, catchUp: this.catchUp, absences: this.absences, chooser: this.chooser, sessions: this.sessions });
    this.catchUp.waitForRooms();
    // Start the model workers now, so the first contributions do not wait for them to load the shapes.
    models.warmUp();
    log.info({ modelWorkers: models.workers }, "model workers started");
    await this.rooms.enter(config.room, config.nick);
    if (config.logRoom) await this.rooms.enter(config.logRoom, config.nick);
    // Entered rooms are rejoined after every reconnect, so the phase rooms come back with the others.
    for (const room of this.ourRooms.phases) await this.rooms.enter(room, config.nick);
    await this.connection.start();
    // A stop while the first connection was still being tried must not be followed by checks.
    if (!this.stopped) this.roomChecks.start();
    // After the room connection, so that it takes 1:1 chat until the direct line is up.
    this.directLine?.open((stanza) => void this.pipeline.take({ stanza, line: "direct-line" }));
  }

  /** Stops the timers and the model workers, leaves the rooms and closes the streams. */
  async stop(): Promise<void> {
    const { log, store, models } = this.options;
    this.stopped = true;
    const unanswered = this.untilBack.close();
    if (unanswered > 0) log.warn({ messages: unanswered }, "stopping before the rooms were caught up on: 1:1 messages sent while we were away are not answered");
    this.retention?.stop();
    // Heard until now: the next start asks the rooms for what they say from here on.
    this.catchUp.stop(store?.isReadonly === true);
    try {
      // A check under way could otherwise join a room while the others are being left.
      await this.roomChecks.stop();
      await this.sessions.close();
      await models.close();
      await this.rooms.leaveAll();
      // Together: each may take the client's close timeouts against a server that does not answer.
      await Promise.all([this.directLine?.stop(), this.connection.stop()]);
    } finally {
      // Last, whatever failed above: nothing after this notes evidence, and the store is closed after stop().
      this.evidence?.flush();
    }
  }
}
