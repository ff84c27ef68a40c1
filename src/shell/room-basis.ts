/**
 * A room's identity basis as the shell sees it, and the inputs that tell the sessions when
 * it changes (a room re-created after a server restart may show occupant ids where it
 * showed real JIDs). The core decides what the change means (session/identity-basis.ts).
 */
import type { IdentityBasis, Input, Session } from "../session/types.js";
import type { RoomIdentities } from "../xmpp/rooms.js";

/** What the room's identity keys are built from, strongest first, as xmpp/occupant-identity.ts builds them. */
export function basisOfRoom(identities: RoomIdentities): IdentityBasis {
  return identities.realJids ? "jid" : identities.occupantIds ? "occupant" : "nick";
}

/**
 * One `identity-basis` input per live session when the room's basis differs from the one
 * noted before; none at the first join, where nothing was held on an earlier basis.
 */
export function basisChangeInputs(room: string, previous: RoomIdentities | undefined, now: RoomIdentities, live: readonly Session[]): Input[] {
  if (!previous) return [];
  const basis = basisOfRoom(now);
  if (basis === basisOfRoom(previous)) return [];
  return live.map((session) => ({ kind: "identity-basis", sessionId: session.id, basis, room }));
}
