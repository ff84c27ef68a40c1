import type { Logger } from "pino";
import { STATUS_MARK } from "./session/report.js";
import { COMMANDS, parseCommand, type Command, type CommandName } from "./chat/commands.js";
import { helpText } from "./chat/help.js";
import type { OccupantFacts } from "./catalog/catalog.js";
import { wording } from "./chat/wording.js";
import type { Config } from "./config/schema.js";
import { defaultWorkerCount, ModelWorker } from "./model/model-worker.js";
import { decodeMessage, type DecodedMessage } from "./protocol/codec.js";
import { decodeNegotiation } from "./protocol/negotiation.js";
import { problemFits, proposalFits } from "./protocol/outbound.js";
import { LINGUE_FEATURES, Mode } from "./protocol/vocab.js";
import { FloodGuard } from "./shell/flood-guard.js";
import { partsLimits } from "./shell/contribution-parts.js";
import { readPartNumber } from "./protocol/part-number.js";
import { BatchedEvidence } from "./shell/evidence-batch.js";
import { AgentChooser } from "./shell/agent-chooser.js";
import { RoomCatchUp, type Taken } from "./shell/catch-up.js";
import { MemoryHeardLog, heardOf, type Heard, type HeardLog } from "./shell/heard.js";
import { renderContextOf } from "./shell/outgoing.js";
import { SessionHost } from "./shell/session-host.js";
import { basisChangeInputs } from "./shell/room-basis.js";
import { isListed, participantOf, requesterOf, senderOf, type Sender } from "./shell/sender.js";
import type { SessionStore } from "./store/index.js";
import type { Participant, Requester } from "./session/types.js";
import { XmppConnection } from "./xmpp/connection.js";
import { DirectLine, OnceAcrossLines, type Line } from "./xmpp/direct-line.js";
import { DEFAULT_KEEP_ALIVE, Periodic, type KeepAliveTiming } from "./xmpp/keep-alive.js";
import { classifyMessage, type InboundMessage } from "./xmpp/inbound.js";
import { Rooms, type RoomIdentities } from "./xmpp/rooms.js";
import { answerDiscoveryAndPing } from "./xmpp/service-discovery.js";
import { bareJid, splitJid, type Element } from "./xmpp/stanza.js";
import { OperationsMetrics } from "./ops/metrics.js";
import { readinessOf, type Readiness } from "./ops/readiness.js";
import { partRefusalReason, type RefusalReason } from "./ops/refusals.js";
import type { Route } from "./ops/route.js";
import { operationsRoutes } from "./ops/routes.js";
import { SessionMetrics } from "./ops/session-metrics.js";
import { startWebView, type RunningWebView } from "./web/index.js";
import type { ReplyTarget } from "./inbound/context.js";
import { ErrorBoundary } from "./inbound/error-boundary.js";
import { Replies } from "./inbound/replies.js";

export type { ReplyTarget };

/** Everything known about one inbound command or protocol message. */
interface InboundContext {
  message: InboundMessage;
  decoded: DecodedMessage;
  from: Sender;
  replyTo: ReplyTarget;
  /** For a room message: its keys and when it counts (shell/heard.ts); the input it becomes records it. */
  heard: Heard | undefined;
}

/** How long after start the rooms may take to come back before a crash's unsent tail goes out without their history. */
const FIRST_CATCH_UP_WAIT_MS = 30_000;

/** Commands that change nothing; anyone who can reach us may use them. */
const READ_ONLY: ReadonlySet<CommandName> = new Set(["help", "list", "status", "agents"]);
const AGENT_REFUSAL_QUIET_MS = 10 * 60_000;

export interface CoordinatorOptions {
  config: Config;
  log: Logger;
  now?: () => number;
  /** The durable store; opened by the caller so that a bad database stops the start cleanly. */
  store?: SessionStore;
  /** How often both connections check in with the server and the rooms (keep-alive.ts); tests shorten it. */
  keepAlive?: Partial<KeepAliveTiming>;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const PRUNE_EVERY_MS = 60 * 60 * 1000;

/**
 * The shell: owns the connection and the rooms, turns stanzas into typed inputs, guards
 * against floods and oversize input, and carries out commands. It never lets an error
 * from one message escape.
 */
export class Coordinator {
  readonly connection: XmppConnection;
  /** 1:1 chat with people, on a connection of its own (`xmpp:directLine`, on by default). */
  readonly directLine: DirectLine | undefined;
  private readonly onceAcrossLines = new OnceAcrossLines();
  readonly rooms: Rooms;
  private readonly config: Config;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly flood: FloodGuard;
  /** The same limit for what rooms give back after an absence, counted at the rooms' stamps. */
  private readonly caughtUpFlood: FloodGuard;
  private readonly agentRefusedAt = new Map<string, number>();
  private readonly identitiesNoted = new Map<string, RoomIdentities>();
  private readonly available: ReadonlySet<CommandName> = new Set<CommandName>(["help", "list", "start", "status", "cancel", "debate", "agents", "approve", "reject", "use"]);
  readonly chooser: AgentChooser;
  private readonly store: SessionStore | undefined;
  /** Agent evidence on its way to the store, a batch at a time. */
  private readonly evidence: BatchedEvidence | undefined;
  private pruneTimer: NodeJS.Timeout | undefined;
  /** The room connection's checks: the server answers, and every room still counts us. */
  private readonly keepAlive: Periodic;
  private stopped = false;
  private readonly models: ModelWorker;
  readonly sessions: SessionHost;
  /** What /metrics shows (src/ops/): fed by the session steps, the refusals below and the connection. */
  readonly metrics: OperationsMetrics;
  private web: RunningWebView | undefined;
  /** What was taken in from each room: the store, or memory without one. */
  private readonly heard: HeardLog;
  /** What the rooms said while we were away, taken in at each join (shell/catch-up.ts). */
  readonly catchUp: RoomCatchUp;
  /** Room messages being handled, by key: the same message given twice at once is taken once. */
  private readonly inFlight = new Set<string>();
  private firstCatchUpTimer: NodeJS.Timeout | undefined;
  private readonly replies: Replies;
  private readonly boundary: ErrorBoundary;

  constructor(options: CoordinatorOptions) {
    this.config = options.config;
    this.log = options.log;
    this.now = options.now ?? Date.now;
    this.store = options.store;
    this.flood = new FloodGuard(this.config.limits.messagesPerMinute);
    this.caughtUpFlood = new FloodGuard(this.config.limits.messagesPerMinute);
    // Each connection's lines say which it is ("room", "direct"): an outage of one is not one of the other.
    this.connection = new XmppConnection({ account: this.config.xmpp, maxStanzaBytes: this.config.limits.maxStanzaBytes }, this.log.child({ line: "room" }));
    this.heard = this.store ?? new MemoryHeardLog();
    this.rooms = new Rooms(this.connection, this.log, (room) => this.catchUp.historyFor(room));
    this.directLine = this.config.xmpp.directLine
      ? new DirectLine(this.config.xmpp, this.config.limits.maxStanzaBytes, this.log.child({ line: "direct" }), options.keepAlive)
      : undefined;
    const timing = { ...DEFAULT_KEEP_ALIVE, ...options.keepAlive };
    this.keepAlive = new Periodic(async () => {
      // A socket found dead is dropped and reconnects, and every room is joined again then.
      if (await this.connection.probe(timing.probeTimeoutMs)) await this.rooms.check(timing);
    }, timing.keepAliveMs);
    this.evidence = this.store ? new BatchedEvidence(this.store, this.log) : undefined;
    this.chooser = new AgentChooser({
      agentsDir: this.config.agentsDir,
      ownProfile: this.config.profilePath,
      ownNick: this.config.nick,
      chairNick: this.config.mfr.chairNick,
      enableDebate: this.config.mfr.enableDebate,
      log: this.log,
      now: this.now,
      discover: (nick) => this.connection.discoFeatures(`${bareJid(this.config.room)}/${nick}`),
      ...(this.evidence ? { journal: this.evidence } : {}),
    });
    // Gauges are read at scrape time, so the parts they read may be made after this.
    this.metrics = new OperationsMetrics({
      liveSessions: () => this.sessions.liveSessions().length,
      queuedModelJobs: () => this.models.queued,
      connected: () => this.connection.online,
      ...(this.directLine ? { directLineConnected: () => this.directLine?.online === true } : {}),
    });
    this.models = new ModelWorker({
      shapesPath: this.config.mfr.shapesPath,
      timeoutMs: this.config.mfr.validationTimeoutMs,
      workers: this.config.mfr.modelWorkers ?? defaultWorkerCount(),
      maxQueued: this.config.limits.maxQueuedModelJobs,
      onQueueFull: () => this.metrics.refused("workers-busy"),
      // A read-only store takes no blobs (isReadonly): the texts then stay inline, as before.
      ...(this.store && !this.store.isReadonly ? { storePath: this.store.path } : {}),
    });
    this.sessions = new SessionHost({
      render: renderContextOf(this.config),
      settings: {
        contributionTimeoutMs: this.config.mfr.contributionTimeoutMs,
        validationTimeoutMs: this.config.mfr.validationTimeoutMs,
        reasoningTimeoutMs: this.config.mfr.reasoningTimeoutMs,
        maxFixRounds: this.config.mfr.maxFixRounds,
        maxRepairRounds: this.config.mfr.maxRepairRounds,
        maxTriplesPerContribution: this.config.limits.maxTriplesPerContribution,
        debateTimeoutMs: this.config.mfr.debateTimeoutMs,
        quietPeriodMs: this.config.mfr.quietPeriodMs,
        validationClockStartsInWorker: true,
      },
      maxLiveSessions: this.config.limits.maxLiveSessions,
      maxLiveSessionsPerPerson: this.config.limits.maxLiveSessionsPerPerson,
      models: this.models,
      outlet: {
        send: async (stanza, options) => {
          await this.connection.send(stanza, options);
        },
        settled: () => this.connection.settled(),
      },
      log: this.log,
      now: this.now,
      ...(this.store ? { journal: this.store } : {}),
      deadlineRoom: (session) => this.chooser.deadlineRoom(session),
      parts: partsLimits(this.config.limits.maxTriplesPerContribution, this.config.limits.maxInboundBytes),
      onPartRefused: (refusal) => this.metrics.refused(partRefusalReason(refusal)),
    });
    this.sessions.onStep(new SessionMetrics(this.metrics).take);
    this.replies = new Replies({ connection: this.connection, directLine: this.directLine, log: this.log, rooms: { primary: this.config.room, log: this.config.logRoom } });
    this.boundary = new ErrorBoundary({ log: this.log, count: (stage) => this.metrics.inboundError(stage) });
    this.catchUp = new RoomCatchUp({
      heard: this.heard,
      log: this.log,
      now: this.now,
      isProtocolRoom: (room) => this.isProtocolRoom(room),
      take: (stanza, stamp) => this.onMessage(stanza, "room-connection", stamp ?? null),
      takeLive: (stanza) => this.onStanza(stanza),
      fireDeadlinesDueBy: (at) => this.sessions.fireDeadlinesDueBy(at),
      holdDeadlines: () => this.sessions.holdDeadlines(),
      releaseDeadlines: () => this.sessions.releaseDeadlines(),
      isSettled: (room) => this.rooms.isJoined(room) && !this.rooms.isTakingHistory(room),
      rooms: () => this.rooms.roomJids(),
      tellGap: (room, from, to) => this.tellGap(room, from, to),
      onFirstCaughtUp: (carried) => {
        clearTimeout(this.firstCatchUpTimer);
        const tail = this.sessions.sendRestoredTail(carried);
        if (tail.sent + tail.skipped > 0) this.log.info(tail, "the rooms are caught up on; what a crash kept from going out is sent");
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
    });
  }

  async start(): Promise<void> {
    // Until the rooms are caught up on, no deadline fires: an answer may be waiting there.
    this.sessions.holdDeadlines();
    if (this.store) {
      // Rebuild the sessions that were live when the process stopped, before any new input.
      const restored = this.sessions.restore(this.store.liveEvents());
      if (restored.events > 0) this.log.info(restored, "sessions restored from the durable log");
      this.prune();
      this.pruneTimer = setInterval(() => this.prune(), PRUNE_EVERY_MS);
      this.pruneTimer.unref();
    }
    await this.startWebView();
    const identity = { category: "client", type: "bot", name: this.config.nick };
    answerDiscoveryAndPing(this.connection, identity, LINGUE_FEATURES);
    if (this.directLine) answerDiscoveryAndPing(this.directLine.xmpp, identity, LINGUE_FEATURES);
    this.connection.on("online", () => void this.rooms.rejoinAll());
    this.connection.on("online", () => this.metrics.connectionOnline());
    this.connection.on("offline", () => this.rooms.markDisconnected());
    this.connection.on("offline", () => this.catchUp.disconnected());
    this.connection.on("stanza", (stanza) => this.onStanza(stanza));
    const primary = bareJid(this.config.room);
    this.rooms.on("identities", (room, identities) => this.noteIdentities(room, identities));
    this.rooms.on("joining", (room) => this.catchUp.joining(room));
    this.rooms.on("history", (room, history) => void this.catchUp.took(room, history));
    this.firstCatchUpTimer = setTimeout(() => this.catchUp.stopWaitingForRooms(), FIRST_CATCH_UP_WAIT_MS);
    this.firstCatchUpTimer.unref();
    this.rooms.on("occupantJoined", (room, occupant) => {
      if (room === primary) this.chooser.occupantJoined(occupant);
    });
    this.rooms.on("occupantLeft", (room, nick) => {
      if (room !== primary) return;
      const gone = this.chooser.occupantLeft(nick);
      // A chosen agent that leaves before it is asked is dropped or replaced, never waited for.
      if (gone) for (const departure of this.chooser.departures(gone, this.sessions.choosingSessions())) this.sessions.apply(departure);
    });
    // Start the model workers now, so the first contributions do not wait for them to load the shapes.
    this.models.warmUp();
    this.log.info({ modelWorkers: this.models.workers }, "model workers started");
    await this.rooms.enter(this.config.room, this.config.nick);
    if (this.config.logRoom) await this.rooms.enter(this.config.logRoom, this.config.nick);
    // Entered rooms are rejoined after every reconnect, so the phase rooms come back with the others.
    for (const room of this.phaseRoomJids()) await this.rooms.enter(room, this.config.nick);
    await this.connection.start();
    // A stop while the first connection was still being tried must not be followed by checks.
    if (!this.stopped) this.keepAlive.start();
    // After the room connection, so that it takes 1:1 chat until the direct line is up.
    this.directLine?.open((stanza) => this.onDirectLineMessage(stanza));
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
    this.web = await startWebView({
      host: http.host,
      port: http.port,
      token: http.token ?? undefined,
      sessions: this.sessions,
      store: this.store,
      now: this.now,
      log: this.log,
      extraRoutes: this.operationsRoutes(),
    });
    this.log.info({ url: this.web.url, token: http.token !== null }, "web view listening");
  }

  /** The MFR phase rooms (agent:mfrRooms), each once: two phases may share a room. */
  private phaseRoomJids(): string[] {
    return [...new Set(Object.values(this.config.phaseRooms).flatMap((jid) => (jid ? [bareJid(jid)] : [])))];
  }

  /** Where agents may contribute and propose: the primary room and the phase rooms (not the log room, which is for people). */
  private isProtocolRoom(room: string): boolean {
    return room === bareJid(this.config.room) || this.phaseRoomJids().includes(room);
  }

  /** Stops the timers and the model worker, leaves the rooms and closes the stream. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.pruneTimer) clearInterval(this.pruneTimer);
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

  /** Retention: archived sessions past the configured age or count go; live ones never. */
  private prune(): void {
    if (!this.store) return;
    try {
      const pruned = this.store.prune({ maxAgeMs: this.config.retention.maxAgeDays * DAY_MS, maxCount: this.config.retention.maxCount, now: this.now() });
      if (pruned > 0) this.log.info({ pruned }, "archived sessions pruned");
    } catch (err) {
      this.log.error({ err }, "pruning the archive failed");
    }
  }

  private onStanza(stanza: Element): void {
    this.boundary.guard(
      () => ({ stage: "dispatch", stanza }),
      () => {
        if (stanza.is("presence")) {
          this.rooms.handlePresence(stanza);
        } else if (stanza.is("message")) {
          // A room's history at our join, and what the room says while it is taken in, wait for the catch-up.
          if (this.rooms.takeHistory(stanza) || this.catchUp.holdsLive(stanza)) return;
          void this.boundary.run(() => ({ stage: "route", stanza, line: "room-connection" }), async () => void (await this.onMessage(stanza, "room-connection")));
        }
      },
    );
  }

  private onDirectLineMessage(stanza: Element): void {
    void this.boundary.run(() => ({ stage: "route", stanza, line: "direct-line" }), async () => void (await this.onMessage(stanza, "direct-line")));
  }

  /**
   * One inbound message, live or (`stamp` not undefined) given back by a room's history at
   * our join: `stamp` is when the room stamped it (null: given back without a stamp, so
   * counted now). Resolves once it is handled.
   */
  private async onMessage(stanza: Element, line: Line, stamp?: number | null): Promise<Taken> {
    const fromHistory = stamp !== undefined;
    const message = classifyMessage(stanza, this.rooms, this.connection.jid ? bareJid(this.connection.jid) : undefined, fromHistory);
    if ("ignored" in message) {
      this.log.trace({ from: stanza.attrs.from, reason: message.ignored }, "message ignored");
      return "ignored";
    }
    // We are in no room on the direct line: what a room sends there (an invitation, a message
    // to our bare JID) is not ours to answer from a resource that is not the occupant.
    if (line === "direct-line" && (message.kind !== "direct" || message.viaRoom)) {
      this.log.trace({ from: stanza.attrs.from, reason: "room-message-on-direct-line" }, "message ignored");
      return "ignored";
    }
    if (this.directLine && message.kind === "direct" && !message.viaRoom && isToBareJid(stanza)) {
      const copy = { from: message.from, id: stanza.attrs.id as string | undefined, body: stanza.getChildText("body") ?? "" };
      if (!this.onceAcrossLines.first(copy, line, this.now())) {
        this.log.info({ from: message.from, id: copy.id, line }, "1:1 message dropped: the same one came on the other line (the server gave it to both)");
        return "duplicate";
      }
    }
    const decoded = decodeMessage(stanza);
    if (!decoded.body && !decoded.payload) return "ignored"; // chat states, receipts…
    // Said in a room: taken in once, however often the room gives it (shell/heard.ts).
    const heard = message.kind === "room" ? heardOf(message.room, message.nick, stanza, typeof stamp === "number" ? stamp : this.now(), typeof stamp === "number") : undefined;
    if (heard && !this.firstTake(heard)) {
      this.log.debug({ room: heard.room, from: stanza.attrs.from, caughtUp: fromHistory }, "message already taken in; skipped");
      return "duplicate";
    }
    try {
      const context = this.contextOf(message, decoded, line, heard);
      if (!(await this.admit(context, stanza))) return "taken";
      if (context.decoded.payload) await this.onProtocolMessage(context);
      else await this.onChat(context);
      return "taken";
    } finally {
      if (heard) this.doneWith(heard);
    }
  }

  /** False when the message was taken in before, or is being taken in now. */
  private firstTake(heard: Heard): boolean {
    if (heard.keys.some((k) => this.inFlight.has(`${heard.room}\u0000${k}`))) return false;
    try {
      if (this.heard.heardBefore(heard.room, heard.keys)) return false;
    } catch (err) {
      // A store that cannot be read says so elsewhere (readiness); the message is taken.
      this.log.warn({ err, room: heard.room }, "could not look up whether a message was taken in before");
    }
    for (const k of heard.keys) this.inFlight.add(`${heard.room}\u0000${k}`);
    return true;
  }

  /** A message that became no input (a command answered, chatter) is recorded on its own. */
  private doneWith(heard: Heard): void {
    for (const k of heard.keys) this.inFlight.delete(`${heard.room}\u0000${k}`);
    if (heard.recorded || (this.store?.isReadonly ?? false)) return;
    try {
      this.heard.recordHeard({ room: heard.room, keys: heard.keys, at: heard.at });
      heard.recorded = true;
    } catch (err) {
      this.log.warn({ err, room: heard.room }, "could not note a message as taken in");
    }
  }

  private contextOf(message: InboundMessage, decoded: DecodedMessage, line: Line, heard: Heard | undefined): InboundContext {
    return {
      message,
      decoded,
      from: senderOf(message, this.rooms),
      replyTo: message.kind === "room" ? { kind: "room", room: message.room } : { kind: "direct", to: message.from, onDirectLine: line === "direct-line" },
      heard,
    };
  }

  /** A gap that cannot be closed, said once per live session in the room where it was. */
  private async tellGap(room: string, from: number, to: number): Promise<void> {
    for (const session of this.sessions.liveSessions()) await this.reply({ kind: "room", room }, `${STATUS_MARK}${wording.mayHaveMissed(session.id, from, to)}`);
  }

  /** Says once in the log how occupants are told apart in a room, and again only if that changes. */
  private noteIdentities(room: string, identities: RoomIdentities): void {
    const previous = this.identitiesNoted.get(room);
    if (previous && previous.occupantIds === identities.occupantIds && previous.realJids === identities.realJids) return;
    this.identitiesNoted.set(room, identities);
    // A change of basis is not a change of person: the sessions re-bind what agents held (session/identity-basis.ts).
    if (room === bareJid(this.config.room)) for (const input of basisChangeInputs(room, identities, this.sessions.liveSessions())) this.sessions.apply(input);
    // Real JIDs first, as identities go (see xmpp/occupant-identity.ts).
    const basis = identities.realJids ? "real JIDs" : identities.occupantIds ? "occupant ids (XEP-0421)" : "nicks only";
    const log = identities.occupantIds || identities.realJids ? this.log.info.bind(this.log) : this.log.warn.bind(this.log);
    log({ room, ...identities, basis }, `room identities: ${wording.identityBasis(identities)}`);
    if (this.phaseRoomJids().length > 0 && this.isProtocolRoom(room) && identities.occupantIds && !identities.realJids) {
      // Occupant ids are made per room (XEP-0421), so only a real JID links one agent's
      // contribution in one of our rooms to its proposal in another.
      this.log.warn({ room }, "this room gives occupant ids but no real JIDs: an agent that contributes in one of my rooms and proposes in another counts as two; make me a moderator here, or let me create the room");
    }
  }

  /** Size and rate limits, applied before anything is parsed further. */
  private async admit(context: InboundContext, stanza: Element): Promise<boolean> {
    // What a room gives back at our join was said over time: its rate is judged at the room's stamps.
    const heard = context.heard;
    const rate = heard?.caughtUp ? this.caughtUpFlood.admit(context.from.rateKey, heard.at) : this.flood.admit(context.from.rateKey, this.now());
    if (rate !== "ok") {
      this.refused("throttled");
      this.log.warn({ sender: context.from.label, first: rate === "throttled-first" }, "sender throttled");
      if (rate === "throttled-first") await this.replyPrivately(context, wording.throttled());
      return false;
    }
    const bytes = Buffer.byteLength(stanza.toString(), "utf8");
    if (bytes > this.config.limits.maxInboundBytes) {
      this.refused("too-large");
      this.log.warn({ sender: context.from.label, bytes, limit: this.config.limits.maxInboundBytes }, "message over the inbound size limit");
      await this.replyPrivately(context, wording.tooLarge(bytes, this.config.limits.maxInboundBytes));
      return false;
    }
    return true;
  }

  private async onProtocolMessage(context: InboundContext): Promise<void> {
    const payload = context.decoded.payload;
    if (!payload) return;
    const { message } = context;
    const sender = context.from.identity;
    if (message.kind !== "room" || !this.isProtocolRoom(message.room)) {
      this.refused("outside-protocol-room");
      this.log.warn({ sender: context.from.label, mode: payload.mode }, "protocol message outside the primary and phase rooms ignored");
      return;
    }
    const sessionId = context.decoded.siblings.sessionId || undefined;
    this.log.debug({ room: message.room, sender: context.from.label, mode: payload.mode, messageType: payload.messageType, sessionId }, "protocol message");
    if (this.config.protocolAllowList.length > 0 && !isListed(sender, this.config.protocolAllowList)) {
      this.refused("not-allowed");
      this.log.warn({ sender: context.from.label, mode: payload.mode }, "protocol message from a sender not on mfr:allowProtocolFrom ignored");
      return;
    }
    const from = this.participant(context);
    // Whatever it says, a sender of protocol messages is an agent; what it sent is counted.
    const evidence = (what: "contribution" | "proposal" | "other") => this.chooser.protocolFrom(this.occupantFacts(context), what);

    switch (payload.mode) {
      case Mode.ModelFirstRDF: {
        // A contribution in parts counts once, at its first part.
        const modelPart = context.decoded.siblings.modelPart;
        evidence(/^\s*(?!1\s*\/)\d+\s*\//.test(modelPart ?? "") ? "other" : "contribution");
        if (!sessionId) {
          this.refused("no-session-id");
          await this.replyPrivately(context, "Your Turtle contribution has no <sessionId> element beside the payload, so I cannot tell which session it is for.");
          return;
        }
        if (modelPart === undefined) {
          await this.sessions.contribute(sessionId, from, payload.content, context.heard);
          return;
        }
        // One part of a contribution too large for one stanza: assembled at the edge (shell/contribution-parts.ts).
        const part = readPartNumber(modelPart);
        if (!part.ok) {
          this.refused("bad-model-part");
          this.log.info({ sender: context.from.label, sessionId, modelPart }, "contribution part with an unreadable modelPart refused");
          await this.replyPrivately(context, wording.badModelPart(sessionId, modelPart, part.error));
          return;
        }
        await this.sessions.contributePart(sessionId, from, part.part, payload.content, context.heard);
        return;
      }
      case Mode.ModelNegotiation: {
        const decoded = decodeNegotiation(payload.content, payload.messageType);
        evidence(decoded.ok && decoded.message.type === "SolutionProposal" ? "proposal" : "other");
        if (!decoded.ok) {
          this.refused("malformed-payload");
          this.log.info({ sender: context.from.label, err: decoded.error, sessionId: decoded.sessionId }, "unreadable ModelNegotiation payload");
          await this.replyPrivately(context, `I could not read your ModelNegotiation message: ${decoded.error}. Nothing was changed.`);
          return;
        }
        const m = decoded.message;
        if (m.type === "SolutionProposal") {
          const fits = proposalFits(m.solution, this.config.limits.maxStanzaBytes);
          if (!fits.ok) {
            this.refused("proposal-too-large");
            this.log.info({ sender: context.from.label, sessionId: m.sessionId, bytes: fits.bytes }, "proposal too large to show in SessionComplete refused");
            await this.replyPrivately(context, wording.proposalTooLarge(fits.bytes, fits.max));
            return;
          }
          // Not awaited live: the plan check runs in a model worker, and other stanzas need not
          // wait for it. Caught up: the next message waits, since it may come after a deadline.
          const proposed = this.sessions.propose(m.sessionId, from, m.solution, context.heard);
          if (context.heard?.caughtUp) await proposed;
        } else {
          this.log.info({ sender: context.from.label, type: m.type, sessionId: m.sessionId }, "informational protocol message noted");
        }
        return;
      }
      default:
        // HumanChat status lines, ShaclValidation reports and unknown modes are not input.
        evidence("other");
        return;
    }
  }

  private async onChat(context: InboundContext): Promise<void> {
    const body = context.decoded.body ?? "";
    const direct = context.message.kind === "direct";
    const nick = context.message.kind === "room" ? (this.rooms.nickIn(context.message.room) ?? this.config.nick) : this.config.nick;
    if (context.message.kind === "room" && context.message.room === bareJid(this.config.room)) {
      const debating = this.sessions.debatingSessions();
      const line = debating.length ? this.chooser.debateInput(this.participant(context), body, debating) : null;
      if (line) {
        this.log.debug({ sender: context.from.label, sessionId: line.sessionId, line: line.line.kind }, "debate line");
        this.sessions.apply(line, context.heard);
        return;
      }
    }
    const parsed = parseCommand(body, { nick, direct });
    if ("notACommand" in parsed) return;
    if ("unknown" in parsed) {
      if (this.mayAnswerUnknown(context)) await this.reply(context.replyTo, this.addressed(context, wording.unknownCommand(parsed.unknown.word, parsed.unknown.suggestion)));
      return;
    }
    this.log.debug(
      { room: context.message.kind === "room" ? context.message.room : undefined, sender: context.from.label, command: "command" in parsed ? parsed.command.name : parsed.misuse.name },
      "command",
    );
    if ("misuse" in parsed) {
      await this.reply(context.replyTo, wording.usage(parsed.misuse));
      return;
    }
    if (!(await this.mayCommand(context, parsed.command))) return;
    await this.runCommand(parsed.command, context);
  }

  /** Agents may not command us unless allow-listed; state changes need a room occupant. */
  private async mayCommand(context: InboundContext, command: Command): Promise<boolean> {
    const sender = context.from.identity;
    // An agent stays one under a new nick: its identity, and every nick it had, are checked.
    const who = { ...sender, formerNicks: context.from.occupant?.formerNicks ?? [] };
    if (this.chooser.isAgent(who) && !isListed(sender, this.config.commandAllowList)) {
      const key = context.from.rateKey;
      const last = this.agentRefusedAt.get(key);
      this.refused("agent-command");
      this.log.info({ sender: key, command: command.name }, "command from an agent refused");
      if (last === undefined || this.now() - last > AGENT_REFUSAL_QUIET_MS) {
        this.agentRefusedAt.set(key, this.now());
        await this.replyPrivately(context, wording.agentCommandRefused());
      }
      return false;
    }
    if (!READ_ONLY.has(command.name)) {
      // Without the room (the room connection down while the direct line is up) nobody can be
      // told to be an occupant, and what a command would say there would wait in the outbox.
      if (!this.rooms.isJoined(bareJid(this.config.room))) {
        this.refused("not-in-room");
        await this.reply(context.replyTo, wording.notInRoom());
        return false;
      }
      if (!this.isOccupantOrListed(context)) {
        this.refused("not-occupant");
        await this.reply(context.replyTo, wording.occupantsOnly());
        return false;
      }
    }
    // Whoever types commands is a person: never invited to work.
    if (context.from.room === bareJid(this.config.room)) this.chooser.commandFrom(this.occupantFacts(context));
    return true;
  }

  private isOccupantOrListed(context: InboundContext): boolean {
    if (context.message.kind === "room") return true;
    if (context.message.viaRoom) return true;
    const jid = context.from.identity.realJid;
    if (isListed(context.from.identity, this.config.commandAllowList)) return true;
    return jid !== undefined && this.rooms.roomJids().some((room) => this.rooms.occupants(room).some((o) => o.realJid === jid));
  }

  private async runCommand(command: Command, context: InboundContext): Promise<void> {
    if (!this.available.has(command.name)) {
      const usage = COMMANDS.find((c) => c.name === command.name)?.usage ?? command.name;
      await this.reply(context.replyTo, wording.notYetAvailable(usage));
      return;
    }
    switch (command.name) {
      case "help":
        // Who is who is for `agents` and the docs: help speaks to people about what they can do.
        await this.reply(context.replyTo, helpText(this.config.nick, this.available));
        return;
      case "list":
        await this.reply(context.replyTo, this.asStatus(context, this.sessions.listText()));
        return;
      case "status":
        await this.reply(context.replyTo, this.asStatus(context, this.sessions.statusText(command.sessionId)));
        return;
      case "start":
      case "debate": {
        const fits = problemFits(command.problem, this.config.limits.maxStanzaBytes);
        if (!fits.ok) {
          this.refused("problem-too-large");
          await this.reply(context.replyTo, wording.problemTooLarge(fits.bytes, fits.max));
          return;
        }
        const by = this.participant(context);
        const plan = command.name === "start" ? this.chooser.planStart(by) : this.chooser.planDebate(by, this.sessions.debatingSessions());
        if (plan.note) await this.sayIn("primary", plan.note);
        const started = this.sessions.start(command.problem, by, plan, context.heard);
        if (!started.ok) {
          this.refused("session-limit");
          await this.reply(context.replyTo, context.replyTo.kind === "room" ? `${context.from.name}: ${started.reason}` : started.reason);
        } else if (context.replyTo.kind === "direct") await this.reply(context.replyTo, `Started ${started.sessionId} in ${this.config.room}.`);
        return;
      }
      case "cancel":
        if (!this.sessions.cancel(command.sessionId, this.requester(context), context.heard)) await this.reply(context.replyTo, wording.noSuchSession(command.sessionId));
        return;
      case "agents":
        await this.reply(context.replyTo, `${this.chooser.listing()}\n${this.identityLine()}`);
        return;
      case "approve":
      case "reject":
        if (!this.sessions.session(command.sessionId)) {
          await this.reply(context.replyTo, wording.noSuchSession(command.sessionId));
          return;
        }
        this.sessions.apply({ kind: "approval", sessionId: command.sessionId, by: this.requester(context), approved: command.name === "approve" }, context.heard);
        return;
      case "use": {
        const by = this.requester(context);
        const waiting = this.sessions.clarificationFor(by);
        if (!waiting) {
          await this.reply(context.replyTo, wording.noClarification());
          return;
        }
        this.sessions.apply({ kind: "choice", sessionId: waiting.id, by, choice: command.choice }, context.heard);
        return;
      }
      default:
        return;
    }
  }

  /** Counts input refused, by a reason from the fixed set (never from what the sender wrote). */
  private refused(reason: RefusalReason): void {
    this.metrics.refused(reason);
  }

  private participant(context: InboundContext): Participant {
    return participantOf(context.from, bareJid(this.config.room));
  }

  /** The sender as an occupant of the primary room, for the evidence about agents. */
  private occupantFacts(context: InboundContext): OccupantFacts {
    const o = context.from.occupant;
    return { nick: context.from.name, identity: context.from.identity.identity ?? `nick:${context.from.name.toLowerCase()}`, realJid: o?.realJid, formerNicks: o?.formerNicks ?? [] };
  }

  private requester(context: InboundContext): Requester {
    return requesterOf(context.from, bareJid(this.config.room), this.config.commandAllowList);
  }

  /** Status said in the room names agents: marked, so existing agents and Chairs skip it (docs/protocol.md, "Addressing"). */
  private asStatus(context: InboundContext, text: string): string {
    return context.replyTo.kind === "room" ? `${STATUS_MARK}${text}` : text;
  }

  /** In the room, a person is addressed by nick; in 1:1 chat no address is needed. */
  private addressed(context: InboundContext, text: string): string {
    return context.replyTo.kind === "room" ? `${context.from.name}: ${text}` : text;
  }

  /** How this room tells people apart, for `help` and `agents`. */
  private identityLine(): string {
    const identities = this.rooms.identities(this.config.room);
    return identities ? wording.identityBasis(identities) : "";
  }

  /**
   * Something said as a command that is none (in 1:1 chat, addressed to us, or a misspelt
   * command word in the room: chat/misspelt-command.ts) is answered every time: a person who
   * keeps mistyping is told each time, and only the flood guard (admit) bounds how often. Never
   * an agent: agents answer our messages, and answering them back would loop.
   */
  private mayAnswerUnknown(context: InboundContext): boolean {
    return !this.chooser.isAgent({ ...context.from.identity, formerNicks: context.from.occupant?.formerNicks ?? [] });
  }

  private async replyPrivately(context: InboundContext, text: string): Promise<void> {
    const m = context.message;
    const via = m.kind === "room" ? { room: m.room, nick: m.nick } : m.viaRoom;
    if (!via) return this.reply(context.replyTo, text);
    await this.replies.privately(via, text, context.from.label);
  }

  private async sayIn(room: "primary" | "log", text: string): Promise<void> {
    await this.replies.sayIn(room, text);
  }

  /**
   * Sends a one-line or multi-line human message; failures are logged, never thrown. An answer
   * to what came on the direct line goes back on it, unless it has gone down meanwhile.
   */
  async reply(target: ReplyTarget, text: string): Promise<void> {
    await this.replies.to(target, text);
  }
}

/** Addressed to our bare JID (no resource): the only kind of message a server may copy to both lines. */
function isToBareJid(stanza: Element): boolean {
  return splitJid(String(stanza.attrs.to ?? "")).resource === undefined;
}
