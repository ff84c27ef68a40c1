/**
 * How each room tells occupants apart, said once in the log and again only if it changes.
 * A change of basis in the primary room is not a change of person: the sessions re-bind
 * what agents held (session/identity-basis.ts).
 */
import type { Logger } from "pino";
import type { Session } from "../session/types.js";
import type { Input } from "../session/step-io.js";
import { basisChangeInputs } from "./room-basis.js";
import type { RoomIdentities } from "../xmpp/rooms.js";
import type { OurRooms } from "../config/our-rooms.js";
import { commandWording } from "../commands/wording.js";

/** Our rooms, the log, and the live sessions a change of basis re-binds. */
export interface IdentityNotesOptions {
  rooms: OurRooms;
  log: Logger;
  liveSessions: () => readonly Session[];
  apply: (input: Input) => void;
}

/** Remembers what each room last said of its identities, so that only a change is said again. */
export class IdentityNotes {
  private readonly noted = new Map<string, RoomIdentities>();

  constructor(private readonly options: IdentityNotesOptions) {}

  /** What a room said of its identities at a join. */
  note(room: string, identities: RoomIdentities): void {
    const { rooms, log } = this.options;
    const previous = this.noted.get(room);
    if (previous && previous.occupantIds === identities.occupantIds && previous.realJids === identities.realJids) return;
    this.noted.set(room, identities);
    if (room === rooms.primary) for (const input of basisChangeInputs(room, identities, this.options.liveSessions())) this.options.apply(input);
    // Real JIDs first, as identities go (see xmpp/occupant-identity.ts).
    const basis = identities.realJids ? "real JIDs" : identities.occupantIds ? "occupant ids (XEP-0421)" : "nicks only";
    const say = identities.occupantIds || identities.realJids ? log.info.bind(log) : log.warn.bind(log);
    say({ room, ...identities, basis }, `room identities: ${commandWording.identityBasis(identities)}`);
    if (rooms.phases.length > 0 && rooms.isProtocolRoom(room) && identities.occupantIds && !identities.realJids) {
      // Occupant ids are made per room (XEP-0421), so only a real JID links one agent's
      // contribution in one of our rooms to its proposal in another.
      log.warn({ room }, "this room gives occupant ids but no real JIDs: an agent that contributes in one of my rooms and proposes in another counts as two; make me a moderator here, or let me create the room");
    }
  }
}
