/**
 * Absences, and whether the rooms cover them: what each protocol room says of keeping agents'
 * protocol messages (logged once per room and again only when it changes, with the module to
 * load when it does not keep them; shown on /readyz and in the web view), and an absence the
 * room may not have covered handed to every live session as an input, so the core asks an
 * open window again (session/absence.ts) and a replay does the same.
 */
import type { Logger } from "pino";
import type { SessionHost } from "../host/session-host.js";
import { KEEP_PROTOCOL_MODULES, protocolKeepingOf, protocolKeepingNote, type ProtocolKeeping } from "./protocol-keeping.js";
import type { RoomFacts } from "../xmpp/room-facts.js";
import type { OurRooms } from "../config/our-rooms.js";

/** Our rooms, the log, and the live sessions an absence concerns. */
export interface AbsencesOptions {
  rooms: OurRooms;
  log: Logger;
  /** The live sessions, each told of an absence that overlaps it. */
  sessions: Pick<SessionHost, "liveSessions" | "apply">;
}

/** An absence from a room that the room may not have covered (see CatchUpParts.absences). */
export interface Absence {
  /** When we were last known to hear the room: the newest message taken in, or the end of the last catch-up or shutdown. */
  from: number;
  /** When our join was answered. */
  to: number;
  /** The room (or its service) says it keeps agents' protocol messages without a body (catch-up/protocol-keeping.ts). */
  kept: boolean;
  /** What the room gave back reaches the last message taken in before (or nothing was taken in before), and the room was not created anew. */
  reachedBack: boolean;
}

/** One protocol room's keeping, for /readyz and the web view. */
export interface RoomKeeping {
  room: string;
  keeping: ProtocolKeeping;
  /** One line saying what it means. */
  note: string;
}

/** What the rooms say of keeping agents' protocol messages, and absences handed to the sessions (see the module comment). */
export class Absences {
  private readonly keeping = new Map<string, ProtocolKeeping>();

  constructor(private readonly options: AbsencesOptions) {}

  /** What a room and its service said at a join: logged when its keeping is new or changed. */
  noteFacts(room: string, facts: RoomFacts): void {
    const { rooms, log } = this.options;
    if (!rooms.isProtocolRoom(room)) return;
    const keeping = protocolKeepingOf(facts);
    if (this.keeping.get(room) === keeping) return;
    this.keeping.set(room, keeping);
    if (keeping === "kept") {
      log.info({ room }, "the room keeps agents' protocol messages: what they say while we are away is caught up on");
    } else {
      log.warn(
        { room, load: KEEP_PROTOCOL_MODULES, unanswered: facts.unanswered },
        "the room does not say it keeps agents' protocol messages without a body: after an absence, an open request is asked again; load the project's server module to keep them",
      );
    }
  }

  /** An absence the room may not have covered: every live session is told (the core decides what to ask again). */
  absent(room: string, absence: Absence): void {
    const sessions = this.options.sessions.liveSessions();
    this.options.log.info(
      { room, from: new Date(absence.from).toISOString(), to: new Date(absence.to).toISOString(), kept: absence.kept, reachedBack: absence.reachedBack, sessions: sessions.map((s) => s.id) },
      "we were away and the room may not have kept what agents said meanwhile",
    );
    for (const session of sessions) this.options.sessions.apply({ kind: "absence", sessionId: session.id, ...absence, room });
  }

  /** Every protocol room's keeping, as last seen (unknown before its first join). */
  rooms(): RoomKeeping[] {
    const { rooms } = this.options;
    return [rooms.primary, ...rooms.phases].map((room) => {
      const keeping = this.keeping.get(room) ?? "unknown";
      return { room, keeping, note: protocolKeepingNote(room, keeping) };
    });
  }
}
