/**
 * The entry: wires the connections, the rooms, the inbound pipeline (src/inbound/), the
 * session host, the catch-up, the web view and the metrics, and starts and stops them in
 * order. It decides nothing about a message itself.
 */
import type { Logger } from "pino";
import { wording } from "../inbound/wording.js";
import type { Config } from "../config/schema.js";
import type { ModelWorker } from "../model-workers/model-worker.js";
import { LINGUE_FEATURES } from "../base/vocab.js";
import { BatchedEvidence } from "../agent-choice/evidence-batch.js";
import { AgentChooser } from "../agent-choice/agent-chooser.js";
import { RoomCatchUp } from "../catch-up/catch-up.js";
import { MemoryHeardLog } from "../host/heard.js";
import type { SessionHost } from "../host/session-host.js";
import { XmppConnection } from "../xmpp/connection.js";
import { DirectLine } from "../xmpp/direct-line.js";
import { DEFAULT_KEEP_ALIVE, Periodic, type KeepAliveTiming } from "../xmpp/keep-alive.js";
import { Rooms } from "../xmpp/rooms.js";
import { answerDiscoveryAndPing } from "../xmpp/service-discovery.js";
import { bareJid } from "../xmpp/stanza.js";
import { OperationsMetrics } from "../ops/metrics.js";
import { readinessOf, type Readiness } from "../ops/readiness.js";
import type { Route } from "../ops/route.js";
import { operationsRoutes } from "../ops/routes.js";
import { SessionMetrics } from "../ops/session-metrics.js";
import { startWebView, type RunningWebView } from "../web/index.js";
import type { ReplyTarget } from "../inbound/context.js";
import { InboundPipeline } from "../inbound/pipeline.js";
import { UntilBack } from "../inbound/sent-while-away.js";
import { Replies } from "../inbound/replies.js";
import { embeddedStore, type CoordinatorStore } from "./coordinator-store.js";
import { OurRooms } from "./our-rooms.js";
import { Retention } from "../host/retention.js";
import { Absences } from "../catch-up/absences.js";
import { followTheRooms } from "./room-events.js";
import { modelWorkerOf, sessionHostOf } from "./session-host-of.js";

export type { ReplyTarget };

/** How long after start the rooms may take to come back before a crash's unsent tail goes out without their history. */
const FIRST_CATCH_UP_WAIT_MS = 30_000;

/** What a coordinator is made with. */
export interface CoordinatorOptions {
  config: Config;
  log: Logger;
  now?: () => number;
  /** The durable store (SQLite, or a room unit's part of PostgreSQL); opened by the caller so that a bad database stops the start cleanly. */
  store?: CoordinatorStore;
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
  private readonly config: Config;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly store: CoordinatorStore | undefined;
  private readonly ourRooms: OurRooms;
  /** Agent evidence on its way to the store, a batch at a time. */
  private readonly evidence: BatchedEvidence | undefined;
  private readonly retention: Retention | undefined;
  /** The room connection's checks: the server answers, and every room still counts us. */
  private readonly keepAlive: Periodic;
  private readonly models: ModelWorker;
  private readonly replies: Replies;
  /** 1:1 messages our server kept for us while we were away wait here until the rooms are caught up on. */
  private readonly untilBack = new UntilBack();
  private web: RunningWebView | undefined;
  private firstCatchUpTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(options: CoordinatorOptions) {
    const config = (this.config = options.config);
    const log = (this.log = options.log);
    const now = (this.now = options.now ?? Date.now);
    const store = (this.store = options.store);
    this.ourRooms = new OurRooms(config);
    // Each connection's lines say which it is ("room", "direct"): an outage of one is not one of the other.
    const fleet = options.fleet;
    this.connection = new XmppConnection(
      { account: config.xmpp, maxStanzaBytes: config.limits.maxStanzaBytes, ...(fleet ? { maySpeak: fleet.maySpeak, presencePriority: -1 } : {}) },
      log.child({ line: "room" }),
    );
    this.rooms = new Rooms(this.connection, log, { historyPolicy: (room) => this.catchUp.historyFor(room), subjectOfCreatedRoom: (nick) => wording.roomSubject(nick) });
    this.directLine = config.xmpp.directLine ? new DirectLine(config.xmpp, config.limits.maxStanzaBytes, log.child({ line: "direct" }), options.keepAlive, fleet?.maySpeak) : undefined;
    const timing = { ...DEFAULT_KEEP_ALIVE, ...options.keepAlive };
    this.keepAlive = new Periodic(async () => {
      // A socket found dead is dropped and reconnects, and every room is joined again then.
      if (await this.connection.probe(timing.probeTimeoutMs)) await this.rooms.check(timing);
    }, timing.keepAliveMs);
    this.evidence = store ? new BatchedEvidence(store, log) : undefined;
    this.retention = store ? new Retention(store, config.retention, log, now) : undefined;
    this.chooser = new AgentChooser({
      agentsDir: config.agentsDir,
      ownProfile: config.profilePath,
      ownNick: config.nick,
      chairNick: config.mfr.chairNick,
      enableDebate: config.mfr.enableDebate,
      log,
      now,
      discover: (nick) => this.connection.discoFeatures(`${this.ourRooms.primary}/${nick}`),
      ...(this.evidence ? { journal: this.evidence } : {}),
    });
    // Gauges are read at scrape time, so the parts they read may be made after this.
    this.metrics = new OperationsMetrics(
      {
        liveSessions: () => this.sessions.liveSessions().length,
        queuedModelJobs: () => this.models.queued,
        connected: () => this.connection.online,
        ...(this.directLine ? { directLineConnected: () => this.directLine?.online === true } : {}),
      },
      // One of several units of an instance: the process's own metrics are the instance's (fleet/fleet-metrics.ts).
      fleet ? { processMetrics: false } : {},
    );
    const hostParts = { config, log, now, store, connection: this.connection, chooser: () => this.chooser, refused: this.metrics.refused.bind(this.metrics) };
    this.models = modelWorkerOf(hostParts);
    this.sessions = sessionHostOf(hostParts, this.models);
    this.sessions.onStep(new SessionMetrics(this.metrics).take);
    this.replies = new Replies({ connection: this.connection, directLine: this.directLine, log, isRoom: (jid) => this.rooms.isRoom(jid), rooms: { primary: config.room, log: config.logRoom } });
    const heard = store ?? new MemoryHeardLog();
    this.absences = new Absences({ rooms: this.ourRooms, log, liveSessions: () => this.sessions.liveSessions(), apply: (input) => this.sessions.apply(input) });
    this.pipeline = new InboundPipeline({
      config,
      log,
      now,
      rooms: this.rooms,
      ownBareJid: () => (this.connection.jid ? bareJid(this.connection.jid) : undefined),
      hasDirectLine: this.directLine !== undefined,
      heard,
      readonlyStore: () => store?.isReadonly ?? false,
      isProtocolRoom: (room) => this.ourRooms.isProtocolRoom(room),
      holdsLive: (stanza) => this.catchUp.holdsLive(stanza),
      sessions: this.sessions,
      chooser: this.chooser,
      metrics: this.metrics,
      outlet: this.replies,
      untilBack: this.untilBack,
    });
    this.catchUp = new RoomCatchUp({
      heard,
      log,
      now,
      isProtocolRoom: (room) => this.ourRooms.isProtocolRoom(room),
      take: (stanza, stamp) => this.pipeline.take({ stanza, line: "room-connection", stamp: stamp ?? null }),
      takeLive: (stanza) => this.pipeline.dispatch(stanza),
      fireDeadlinesDueBy: (at) => this.sessions.fireDeadlinesDueBy(at),
      holdDeadlines: () => this.sessions.holdDeadlines(),
      releaseDeadlines: () => this.sessions.releaseDeadlines(),
      isSettled: (room) => this.rooms.isJoined(room) && !this.rooms.isTakingHistory(room),
      rooms: () => this.rooms.roomJids(),
      // A gap that cannot be closed, said once per live session in the room where it was.
      tellGap: async (room, from, to) => {
        for (const session of this.sessions.liveSessions()) await this.reply({ kind: "room", room }, wording.mayHaveMissed(session.id, from, to));
      },
      onCaughtUp: (_room, taken) => this.metrics.caughtUp(taken),
      onAbsence: (room, absence) => this.absences.absent(room, absence),
      onFirstCaughtUp: (carried) => {
        clearTimeout(this.firstCatchUpTimer);
        const tail = this.sessions.sendRestoredTail(carried);
        if (tail.sent + tail.skipped > 0) this.log.info(tail, "the rooms are caught up on; what a crash kept from going out is sent");
        // Now a late mfr-status tells what the rooms said meanwhile, and a late mfr-start finds us in the room.
        const late = this.untilBack.back();
        if (late.waited > 0) this.log.info({ messages: late.waited }, "answering the 1:1 messages sent while we were away");
        if (late.dropped > 0) this.log.warn({ dropped: late.dropped }, "too many 1:1 messages sent while we were away waited for the rooms; the rest were not answered");
      },
    });
  }

  /** GET /metrics, /healthz and /readyz, for the web server (src/web/) to serve. */
  operationsRoutes(): Route[] {
    return operationsRoutes({ metrics: this.metrics, readiness: () => this.readiness() });
  }

  /** Connected, in every room we stay in, and the store takes writes; or why not. */
  readiness(): Readiness {
    return readinessOf({
      connected: this.connection.online,
      rooms: this.rooms.roomJids().map((jid) => ({ jid, joined: this.rooms.isJoined(jid) })),
      storeProblem: this.store?.writeProblem(),
      keeping: this.absences.rooms(),
    });
  }

  /** Restores the sessions, starts the web view, joins the rooms and connects; the direct line last. */
  async start(): Promise<void> {
    const { config, log } = this;
    // Until the rooms are caught up on, no deadline fires: an answer may be waiting there.
    this.sessions.holdDeadlines();
    if (this.store) {
      // Rebuild the sessions that were live when the process stopped, before any new input.
      const restored = this.sessions.restore(this.store.liveEvents());
      if (restored.events > 0) log.info(restored, "sessions restored from the durable log");
      this.retention?.start();
    }
    await this.startWebView();
    const identity = { category: "client", type: "bot", name: config.nick };
    answerDiscoveryAndPing(this.connection, identity, LINGUE_FEATURES);
    if (this.directLine) answerDiscoveryAndPing(this.directLine.xmpp, identity, LINGUE_FEATURES);
    this.connection.on("online", () => void this.rooms.rejoinAll());
    this.connection.on("online", () => this.metrics.connectionOnline());
    this.connection.on("offline", () => this.rooms.markDisconnected());
    this.connection.on("offline", () => this.catchUp.disconnected());
    this.connection.on("stanza", (stanza) => this.pipeline.dispatch(stanza));
    followTheRooms({ rooms: this.rooms, ourRooms: this.ourRooms, log, catchUp: this.catchUp, absences: this.absences, chooser: this.chooser, sessions: this.sessions });
    this.firstCatchUpTimer = setTimeout(() => this.catchUp.stopWaitingForRooms(), FIRST_CATCH_UP_WAIT_MS);
    this.firstCatchUpTimer.unref();
    // Start the model workers now, so the first contributions do not wait for them to load the shapes.
    this.models.warmUp();
    log.info({ modelWorkers: this.models.workers }, "model workers started");
    await this.rooms.enter(config.room, config.nick);
    if (config.logRoom) await this.rooms.enter(config.logRoom, config.nick);
    // Entered rooms are rejoined after every reconnect, so the phase rooms come back with the others.
    for (const room of this.ourRooms.phases) await this.rooms.enter(room, config.nick);
    await this.connection.start();
    // A stop while the first connection was still being tried must not be followed by checks.
    if (!this.stopped) this.keepAlive.start();
    // After the room connection, so that it takes 1:1 chat until the direct line is up.
    this.directLine?.open((stanza) => void this.pipeline.take({ stanza, line: "direct-line" }));
  }

  /** Where the web view listens (`http://127.0.0.1:<port>/`), or undefined when it is off. */
  get webUrl(): string | undefined {
    return this.web?.url;
  }

  /**
   * The web view, when `mfr:httpPort` (or MFR_HTTP_PORT) is set: read-only pages over the
   * sessions, fed by the host's stream of steps. Started after the restore, so the pages
   * never show a half-rebuilt state; a port that cannot be bound stops the start.
   */
  private async startWebView(): Promise<void> {
    const { http } = this.config;
    if (http.port === null) return;
    this.web = await startWebView({ host: http.host, port: http.port, token: http.token ?? undefined, sessions: this.sessions, store: embeddedStore(this.store), now: this.now, log: this.log, extraRoutes: this.operationsRoutes(), rooms: () => this.absences.rooms() });
    this.log.info({ url: this.web.url, token: http.token !== null }, "web view listening");
  }

  /** Stops the timers and the model worker, leaves the rooms and closes the stream. */
  async stop(): Promise<void> {
    this.stopped = true;
    const unanswered = this.untilBack.close();
    if (unanswered > 0) this.log.warn({ messages: unanswered }, "stopping before the rooms were caught up on: 1:1 messages sent while we were away are not answered");
    this.retention?.stop();
    clearTimeout(this.firstCatchUpTimer);
    // Heard until now: the next start asks the rooms for what they say from here on.
    this.catchUp.stop(this.store?.isReadonly === true ? [] : this.rooms.roomJids().filter((room) => this.rooms.isJoined(room) && !this.rooms.isTakingHistory(room)));
    try {
      // A check under way could otherwise join a room while the others are being left.
      await this.keepAlive.stop();
      await this.web?.close();
      await this.sessions.close();
      await this.models.close();
      await this.rooms.leaveAll();
      // Together: each may take the client's close timeouts against a server that does not answer.
      await Promise.all([this.directLine?.stop(), this.connection.stop()]);
    } finally {
      // Last, whatever failed above: nothing after this notes evidence, and the store is closed after stop().
      this.evidence?.flush();
    }
  }

  /**
   * Sends a one-line or multi-line human message; failures are logged, never thrown. An answer
   * to what came on the direct line goes back on it, unless it has gone down meanwhile.
   */
  async reply(target: ReplyTarget, text: string): Promise<void> {
    await this.replies.to(target, text);
  }
}
