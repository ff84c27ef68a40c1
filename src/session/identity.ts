/**
 * Who is who in a session: the rules that decide whether two inputs come from the same
 * person, whether an input may touch what someone contributed, and who may steer a session.
 * The shell supplies the facts (identity keys, standing in the room); the rules live here,
 * so a replay of the log decides exactly as live did.
 */
import { basisChangeExplains, basisOf } from "./identity-basis.js";
import type { Step } from "./step-context.js";
import type { Participant, Requester, Session } from "./types.js";

/** Agent nicks compare case-insensitively, as existing agents and people write them. */
export function sameAgent(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/** Same person: by identity key where both have one, else by real JID, else by nick. */
export function sameParticipant(a: Participant, b: Participant): boolean {
  if (a.identity && b.identity) return a.identity === b.identity;
  if (a.jid && b.jid) return a.jid === b.jid;
  return sameAgent(a.nick, b.nick);
}

/** What an earlier contribution or proposal was recorded under. */
interface Held {
  agent: string;
  agentJid: string | undefined;
  agentIdentity?: string | undefined;
}

/** Everything held under a nick in this session: contributions, proposals, late contributions. */
function heldUnder(session: Session, nick: string): Held[] {
  return [...Object.values(session.contributions), ...session.proposals, ...session.late].filter((h) => sameAgent(h.agent, nick));
}

/**
 * The first thing under `from`'s nick in this session that someone else sent: a nick that
 * another identity used earlier cannot replace that identity's contribution or proposal.
 * Held on another basis than the one the room changed to is not someone else's (see
 * identity-basis.ts); `rebindOnBasisChange` then makes it `from`'s.
 */
export function heldByAnother(session: Session, from: Participant): Held | undefined {
  return heldUnder(session, from.nick).find(
    (h) => !sameParticipant({ nick: h.agent, jid: h.agentJid, identity: h.agentIdentity }, from) && !basisChangeExplains(session, h.agentIdentity, from),
  );
}

/**
 * Once `heldByAnother` found nobody else: what `from`'s nick holds on the room's old
 * identity basis becomes `from`'s, so the guard compares on the new basis from now on
 * (a second occupant id under the nick is then someone else). Only the nick links the two
 * keys, so it is said in the log each time it happens.
 */
export function rebindOnBasisChange(session: Session, from: Participant, s: Step): void {
  const stale = (h: Held) => sameAgent(h.agent, from.nick) && basisChangeExplains(session, h.agentIdentity, from);
  const earlier = heldUnder(session, from.nick).filter(stale);
  const first = earlier[0];
  const now = from.identity;
  if (!first || now === undefined) return;
  const rebound = <T extends Held>(h: T): T => (stale(h) ? { ...h, agentJid: from.jid, agentIdentity: now } : h);
  for (const [key, contribution] of Object.entries(session.contributions)) session.contributions[key] = rebound(contribution);
  session.proposals = session.proposals.map(rebound);
  session.late = session.late.map(rebound);
  const why = `the room's identity basis changed from ${basisOf(first.agentIdentity)} to ${basisOf(now)}; nick ${from.nick} re-bound to ${now}`;
  s.log("warn", why, { sessionId: session.id, nick: from.nick, earlier: [...new Set(earlier.map((h) => h.agentIdentity))], now, items: earlier.length });
}

/** Cancel, approve, reject and choose: the person who started it, a room moderator, or someone allow-listed. */
export function maySteer(session: Session, by: Requester): boolean {
  return by.standing !== undefined || sameParticipant(by, session.startedBy);
}
