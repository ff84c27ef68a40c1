/**
 * The keep-alive's look at one room (keep-alive.ts): are we still in it, and if not, is it
 * time to join again? In a room we think we are in, we ping our own occupant (XEP-0410); a
 * room that no longer counts us (its service restarted and lost us without a word) is to be
 * joined again. A room we are not in is joined again once the pause after being put out is
 * over, and one that banned us once `bannedRetryMs` has passed. A room being joined or left
 * is left alone. It decides and logs; rooms.ts acts.
 */
import type { Logger } from "pino";
import type { XmppConnection } from "./connection.js";
import { selfPingVerdict, type KeepAliveTiming } from "./keep-alive.js";

/** A room as the keep-alive sees it. */
export interface CheckedRoom {
  readonly jid: string;
  readonly nick: string;
  readonly joined: boolean;
  /** A join is under way. */
  readonly pendingJoin?: unknown;
  /** We are leaving on purpose. */
  readonly leaving?: unknown;
  readonly bannedAt?: number;
  readonly rejoinNotBefore?: number;
}

/** What the keep-alive found in a room: nothing to do, a room to join again, or one that lost us (forget what we knew, then join again). */
export type RoomCheck = "fine" | "join" | "lost";

/** How the self-check waits: for the ping's answer, and before knocking again at a room that banned us. */
export type RoomCheckTiming = Pick<KeepAliveTiming, "probeTimeoutMs" | "bannedRetryMs">;

/** Checks our presence in one room (see the module's comment); never throws. */
export async function checkRoomPresence(connection: XmppConnection, log: Logger, room: CheckedRoom, { probeTimeoutMs: timeoutMs, bannedRetryMs }: RoomCheckTiming): Promise<RoomCheck> {
  if (room.pendingJoin || room.leaving) return "fine";
  const now = Date.now();
  if (!room.joined && (now < (room.rejoinNotBefore ?? 0) || (room.bannedAt !== undefined && now < room.bannedAt + bannedRetryMs))) return "fine";
  if (room.joined) {
    const nick = room.nick;
    const answer = await connection.ping(`${room.jid}/${nick}`, timeoutMs);
    const verdict = selfPingVerdict(answer);
    if (verdict === "unknown") log.debug({ room: room.jid, answer: answer.kind }, "the room did not say whether we are still in it; asking again later");
    // A join, a leave or a drop since the ping went out settled the question already.
    if (verdict !== "out" || !room.joined || room.nick !== nick || room.pendingJoin || room.leaving) return "fine";
    log.warn({ room: room.jid, nick, condition: answer.kind === "error" ? answer.condition : undefined }, "the room no longer counts us as an occupant; joining again");
    return "lost";
  }
  if (room.bannedAt !== undefined) {
    log.info({ room: room.jid, bannedAt: new Date(room.bannedAt).toISOString() }, "trying again the room that banned us, in case the ban was lifted");
  } else {
    log.info({ room: room.jid }, "not in the room; joining again");
  }
  return "join";
}
