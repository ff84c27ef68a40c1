/**
 * A room's identity basis as the shell sees it, and the inputs that tell the sessions when
 * it changes (a room re-created after a server restart may show occupant ids where it
 * showed real JIDs). The core decides what the change means (session/identity-basis.ts).
 */
import { knownBasis } from "../session/identity-basis.js";
import type { IdentityBasis, Session } from "../session/types.js";
import type { Input } from "../session/step-io.js";
import type { RoomIdentities } from "../xmpp/rooms.js";

/** What the room's identity keys are built from, strongest first, as xmpp/occupant-identity.ts builds them. */
export function basisOfRoom(identities: RoomIdentities): IdentityBasis {
  return identities.realJids ? "jid" : identities.occupantIds ? "occupant" : "nick";
}

/**
 * One `identity-basis` input per live session whose known basis differs from the room's now.
 * A session knows the basis announced to it last, or else the one its newest contribution or
 * proposal was recorded on, so a change is seen across a restart of the coordinator too (the
 * server restarted with it, and the room came back on another basis). None for a session
 * that holds nothing yet, or whose basis is the room's.
 */
export function basisChangeInputs(room: string, now: RoomIdentities, live: readonly Session[]): Input[] {
  const basis = basisOfRoom(now);
  return live.flatMap((session) => {
    const known = knownBasis(session);
    return known === undefined || known === basis ? [] : [{ kind: "identity-basis" as const, sessionId: session.id, basis, room }];
  });
}
