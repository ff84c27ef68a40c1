/**
 * The identity basis of a session's room, and what a change of it means for who is who.
 *
 * Identity keys compare only within one basis: after a server restart a room may be
 * re-created showing occupant ids where it showed real JIDs, and `jid:modeler@agents` and
 * `occupant:…` can then be the same agent; nothing in the keys links them. The shell sees
 * the room change and says so (an `identity-basis` input); only then does a key on the
 * announced basis explain something held on another. A different key on the same basis
 * is never explained: that stays someone else.
 */
import type { Step } from "./step-context.js";
import type { IdentityBasis, Participant, Session } from "./types.js";
import type { Input } from "./step-io.js";

const BASES: readonly IdentityBasis[] = ["jid", "occupant", "nick"];

/** The basis of an identity key (its prefix before the first `:`); undefined for none, or one not known here. */
export function basisOf(identity: string | undefined): IdentityBasis | undefined {
  const colon = identity?.indexOf(":") ?? -1;
  if (identity === undefined || colon < 0) return undefined;
  const prefix = identity.slice(0, colon);
  return BASES.find((b) => b === prefix);
}

/**
 * Whether the room's change of basis explains why `from` differs from what was held under
 * its nick as `heldIdentity`: `from` speaks on the basis the shell announced last, and the
 * held item was recorded on another one. Keys of older logs, without a basis, explain nothing.
 */
export function basisChangeExplains(session: Session, heldIdentity: string | undefined, from: Participant): boolean {
  const now = basisOf(from.identity);
  const then = basisOf(heldIdentity);
  return now !== undefined && then !== undefined && then !== now && now === session.identityBasis;
}

/**
 * The basis a session knows for its room: the one announced last, or else the one its newest
 * contribution or proposal was recorded on (older logs, and sessions never told: undefined).
 */
export function knownBasis(session: Session): IdentityBasis | undefined {
  if (session.identityBasis !== undefined) return session.identityBasis;
  const held = [...Object.values(session.contributions), ...session.proposals].sort((a, b) => b.receivedAt - a.receivedAt);
  for (const h of held) {
    const basis = basisOf(h.agentIdentity);
    if (basis !== undefined) return basis;
  }
  return undefined;
}

/**
 * The step of an `identity-basis` input: the basis is recorded for the rules; nothing is said
 * in the room. Announcing the basis already known changes nothing (logged at debug only).
 */
export function onIdentityBasis(session: Session, input: Extract<Input, { kind: "identity-basis" }>, s: Step): void {
  const from = knownBasis(session) ?? null;
  if (from === input.basis) {
    s.log("debug", "room identity basis announced again", { sessionId: session.id, basis: input.basis });
    return;
  }
  session.identityBasis = input.basis;
  s.log("info", "room identity basis changed", { sessionId: session.id, from, to: input.basis, ...(input.room ? { room: input.room } : {}) });
}
