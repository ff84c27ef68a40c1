/**
 * The rooms the coordinator stays in, by role: the primary room (commands, debates,
 * sessions), the log room (for people), and the MFR phase rooms (agent:mfrRooms).
 */
import type { Config } from "./schema.js";
import { bareJid } from "../xmpp/stanza.js";

/** The rooms by role, read once from the configuration. */
export class OurRooms {
  /** The primary room's bare JID. */
  readonly primary: string;
  /** The phase rooms, each once: two phases may share a room. */
  readonly phases: readonly string[];

  constructor(config: Pick<Config, "room" | "phaseRooms">) {
    this.primary = bareJid(config.room);
    this.phases = [...new Set(Object.values(config.phaseRooms).flatMap((jid) => (jid ? [bareJid(jid)] : [])))];
  }

  /** Where agents may contribute and propose: the primary room and the phase rooms (not the log room, which is for people). */
  isProtocolRoom(room: string): boolean {
    return room === this.primary || this.phases.includes(room);
  }
}
