/**
 * Every inbound stanza, through one pipeline: dispatch (presence to the rooms, a room's
 * history and what waits for it to the catch-up), then for each message admit, read,
 * identify and route, in that order, inside one error boundary. A room message is taken in
 * once, and noted as taken when its handling ends, however it ends. A 1:1 message our server
 * kept for us while we were away waits, once admitted, until we are back (./sent-while-away.ts).
 */
import type { Logger } from "pino";
import type { AgentChooser } from "../agent-choice/agent-chooser.js";
import type { HeardLog } from "../host/heard.js";
import type { SessionHost } from "../host/session-host.js";
import type { Config } from "../config/schema.js";
import type { OurRooms } from "../config/our-rooms.js";
import type { OperationsMetrics } from "../ops/metrics.js";
import type { Rooms } from "../xmpp/rooms.js";
import { bareJid, type Element } from "../xmpp/stanza.js";
import { AVAILABLE_COMMANDS } from "../commands/registry.js";
import { Admission } from "./admit.js";
import { sentWhileAway, type Arrival, type InboundContext, type ReplyOutlet, type Taken } from "./context.js";
import { ErrorBoundary } from "./error-boundary.js";
import { HeardOnce } from "./heard-once.js";
import { Identification } from "./identify.js";
import { readMessage, type ReadOptions } from "./read.js";
import { routeMessage, type RouteOptions } from "./route.js";
import type { UntilBack } from "./sent-while-away.js";
import type { InboundStage } from "../ops/inbound-stages.js";

/** Everything the stages need, given once by the entry (src/coordinator/coordinator.ts). */
export interface PipelineOptions {
  config: Pick<Config, "room" | "nick" | "limits" | "protocolAllowList" | "commandAllowList">;
  log: Logger;
  now: () => number;
  rooms: Rooms;
  /** Our own bare JID once connected. */
  ownBareJid: () => string | undefined;
  hasDirectLine: boolean;
  /** What was taken in from each room, and whether the store takes no writes. */
  heard: HeardLog;
  readonlyStore: () => boolean;
  /** Rooms that carry the protocol (the log room is for people). */
  ourRooms: Pick<OurRooms, "isProtocolRoom">;
  sessions: SessionHost;
  chooser: AgentChooser;
  metrics: Pick<OperationsMetrics, "refused" | "inboundError">;
  outlet: ReplyOutlet;
  /** Until when 1:1 messages kept for us while we were away wait (the entry opens it once the rooms are caught up on); by default they never wait. */
  untilBack?: Pick<UntilBack, "wait">;
}

/** What may hold a live room message back for a while (the catch-up, while the room's history is taken in), handing it to `dispatch` later. */
export interface LiveHold {
  holdsLive(stanza: Element): boolean;
}

/** The stages in order, inside one error boundary; see the top of this file. */
export class InboundPipeline {
  private readonly boundary: ErrorBoundary;
  private readonly heardOnce: HeardOnce;
  private readonly admission: Admission;
  private readonly identification: Identification;
  private readonly reading: ReadOptions;
  private readonly routing: RouteOptions;
  private readonly untilBack: Pick<UntilBack, "wait">;
  private hold: LiveHold | undefined;

  constructor(private readonly options: PipelineOptions) {
    const { config, log, now, rooms, sessions, chooser, metrics } = options;
    const primaryRoom = bareJid(config.room);
    const refused = metrics.refused.bind(metrics);
    this.boundary = new ErrorBoundary({ log, count: (stage) => metrics.inboundError(stage) });
    this.heardOnce = new HeardOnce(options.heard, log, options.readonlyStore);
    this.untilBack = options.untilBack ?? { wait: () => Promise.resolve(true) };
    this.admission = new Admission({ ...options, heardOnce: this.heardOnce, limits: config.limits, refused });
    this.identification = new Identification({ ...config, primaryRoom, rooms, chooser, refused, log, now });
    this.reading = { primaryRoom, ownNick: (room) => (room === undefined ? config.nick : (rooms.nickIn(room) ?? config.nick)), sessions, chooser, log };
    const commands = { nick: config.nick, room: config.room, maxStanzaBytes: config.limits.maxStanzaBytes, sessions, chooser, identities: () => rooms.identities(config.room), available: AVAILABLE_COMMANDS, refused };
    this.routing = { sessions, carry: { sessions, maxStanzaBytes: config.limits.maxStanzaBytes, refused, log }, commands, log };
  }

  /** Registers what holds live room messages back (catch-up/catch-up.ts registers itself when it is made). */
  holdLiveWith(hold: LiveHold): void {
    this.hold = hold;
  }

  /** A stanza on the room connection: presence to the rooms, a message (unless it waits for the catch-up) on through the pipeline. */
  dispatch(stanza: Element): void {
    this.boundary.guard(
      () => ({ stage: "dispatch", stanza }),
      () => {
        if (stanza.is("presence")) {
          this.options.rooms.handlePresence(stanza);
        } else if (stanza.is("message")) {
          // A room's history at our join, and what the room says while it is taken in, wait for the catch-up.
          if (this.options.rooms.takeHistory(stanza) || this.hold?.holdsLive(stanza) === true) return;
          void this.take({ stanza, line: "room-connection" });
        }
      },
    );
  }

  /**
   * One inbound message, live or given back by a room's history at our join (`stamp`).
   * Resolves once it is handled, with what became of it; never rejects.
   */
  async take(arrival: Arrival): Promise<Taken> {
    let stage: InboundStage = "admit";
    let ctx: InboundContext | undefined;
    let taken: Taken = "taken";
    await this.boundary.run(
      () => ({ stage, stanza: arrival.stanza, line: arrival.line }),
      async () => {
        const entry = this.admission.enter(arrival);
        if (typeof entry === "string") {
          taken = entry;
          return;
        }
        ctx = entry;
        try {
          if (sentWhileAway(entry) !== undefined && !(await this.untilBack.wait())) {
            // Counted in the one line said when we are back, or when we stop (src/coordinator/coordinator.ts).
            this.options.log.debug({ from: entry.sender.label, id: arrival.stanza.attrs.id }, "1:1 message sent while we were away not answered: too many wait, or we are stopping");
            return;
          }
          if (!(await this.admission.limit(entry))) return;
          stage = "read";
          const read = readMessage(entry, this.reading);
          stage = "identify";
          const identified = await this.identification.run(read);
          if (!identified) return;
          stage = "route";
          await routeMessage(identified, this.routing);
        } finally {
          if (entry.heard) this.heardOnce.doneWith(entry.heard);
        }
      },
    );
    // A message that failed before it was admitted was not input.
    return ctx === undefined && taken === "taken" ? "ignored" : taken;
  }
}
