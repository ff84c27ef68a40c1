/**
 * Every inbound stanza, through one pipeline: dispatch (presence to the rooms, a room's
 * history and what waits for it to the catch-up), then for each message one chain of stages
 * (./chain.ts), each handing on to the next: admit (which holds a 1:1 message our server kept
 * for us while we were away until we are back, ./sent-while-away.ts, and applies the limits),
 * read, identify, carry (a protocol message to the host's intakes) and route (the rest),
 * inside one error boundary. A room message is taken in once, and noted as taken when
 * its handling ends, however it ends (./admit.ts). This file only composes them.
 */
import type { Logger } from "pino";
import type { AgentChooser } from "../agent-choice/agent-chooser.js";
import type { HeardLog } from "../host/heard.js";
import type { SessionHost } from "../host/session-host.js";
import type { Config } from "../config/schema.js";
import type { OurRooms } from "../config/our-rooms.js";
import type { OperationsMetrics } from "../ops/metrics.js";
import type { Rooms } from "../xmpp/rooms.js";
import type { XmppConnection } from "../xmpp/connection.js";
import { bareJid, type Element } from "../xmpp/stanza.js";
import { AVAILABLE_COMMANDS } from "../commands/registry.js";
import { Admission, admitted, type Taking } from "./admit.js";
import { Chain, type Progress } from "./chain.js";
import type { Arrival, ReplyOutlet, Taken } from "./context.js";
import { ErrorBoundary } from "./error-boundary.js";
import { HeardOnce } from "./heard-once.js";
import { Identification, identified } from "./identify.js";
import { reading, type ReadOptions } from "./read.js";
import { routed, type RouteOptions } from "./route.js";
import { carried, type CarryOptions } from "./carry-protocol.js";
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
  /** Admit, read, identify, carry protocol, route: each stage hands on to the next (./chain.ts). */
  private readonly walk: (taking: Taking, progress: Progress<InboundStage>) => Promise<void>;
  private hold: LiveHold | undefined;

  constructor(private readonly options: PipelineOptions) {
    const { config, log, now, rooms, sessions, chooser, metrics } = options;
    const primaryRoom = bareJid(config.room);
    const refused = metrics.refused.bind(metrics);
    this.boundary = new ErrorBoundary({ log, count: (stage) => metrics.inboundError(stage) });
    this.heardOnce = new HeardOnce(options.heard, log, options.readonlyStore);
    const admission = new Admission({ ...options, heardOnce: this.heardOnce, limits: config.limits, refused });
    const identification = new Identification({ ...config, primaryRoom, rooms, chooser, refused, log, now });
    const readOptions: ReadOptions = { primaryRoom, ownNick: (room) => (room === undefined ? config.nick : (rooms.nickIn(room) ?? config.nick)), sessions, chooser, log };
    const commands = { nick: config.nick, room: config.room, maxStanzaBytes: config.limits.maxStanzaBytes, sessions, chooser, identities: () => rooms.identities(config.room), available: AVAILABLE_COMMANDS, refused };
    const carry: CarryOptions = { intake: sessions, maxStanzaBytes: config.limits.maxStanzaBytes, refused, log };
    const routing: RouteOptions = { sessions, commands, log };
    this.walk = Chain.of<InboundStage, Taking>()
      .then("admit", admitted(admission, this.heardOnce))
      .then("read", reading(readOptions))
      .then("identify", identified(identification))
      .then("route", carried(carry))
      .then("route", routed(routing))
      .end();
  }

  /** Takes every stanza of the room connection from now on (the entry asks it to at start). */
  listenTo(connection: Pick<XmppConnection, "on">): void {
    connection.on("stanza", (stanza) => this.dispatch(stanza));
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
   * One inbound message, live or given back by a room's history at our join (`stamp`), down
   * the chain. Resolves once it is handled, with what became of it; never rejects.
   */
  async take(arrival: Arrival): Promise<Taken> {
    // Not input unless admitted: a message that fails before then was not taken in.
    const taking: Taking = { arrival, taken: "ignored" };
    const progress: Progress<InboundStage> = { stage: "admit" };
    await this.boundary.run(
      () => ({ stage: progress.stage, stanza: arrival.stanza, line: arrival.line }),
      () => this.walk(taking, progress),
    );
    return taking.taken;
  }
}
