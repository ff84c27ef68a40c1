/**
 * Who is who in a session: the rules that decide whether two inputs come from the same
 * person, whether an input may touch what someone contributed, and who may steer a session.
 * The shell supplies the facts (identity keys, standing in the room); the rules live here,
 * so a replay of the log decides exactly as live did.
 */
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

/**
 * The first thing under `from`'s nick in this session that someone else sent: a nick that
 * another identity used earlier cannot replace that identity's contribution or proposal.
 */
export function heldByAnother(session: Session, from: Participant): Held | undefined {
  const held: Held[] = [
    ...Object.values(session.contributions),
    ...session.proposals,
    ...session.late,
  ].filter((h) => sameAgent(h.agent, from.nick));
  return held.find((h) => !sameParticipant({ nick: h.agent, jid: h.agentJid, identity: h.agentIdentity }, from));
}

/** Cancel, approve, reject and choose: the person who started it, a room moderator, or someone allow-listed. */
export function maySteer(session: Session, by: Requester): boolean {
  return by.standing !== undefined || sameParticipant(by, session.startedBy);
}
