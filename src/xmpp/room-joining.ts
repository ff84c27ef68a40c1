/**
 * Joining one MUC room (XEP-0045 §7.2): a join presence goes out under a nick, and the room
 * answers with our self-presence (status 110: we are in) or an error presence (why not). The
 * rule it keeps: one join pending per room, settled by the room's answer, a newer join, a
 * drop, or JOIN_TIMEOUT_MS of silence; a nick someone else holds is answered by asking for the
 * next one (nick-2, nick-3, …), up to MAX_NICK_ATTEMPTS. What happens once in is rooms.ts's.
 */
import type { Logger } from "pino";
import type { XmppConnection } from "./connection.js";
import { NS_STANZAS, xml, type Element } from "./stanza.js";

/** How long a join waits for the room's answer. */
const JOIN_TIMEOUT_MS = 10_000;
/** How many nicks a join asks for (the wanted one, then -2 to -9) before it gives up. */
const MAX_NICK_ATTEMPTS = 9;

/** A join sent and not yet answered: the room's self-presence resolves it, anything else rejects it. */
export interface PendingJoin {
  resolve: () => void;
  reject: (err: Error) => void;
}

/** A room as a join sees and updates it. */
export interface JoiningRoom {
  readonly jid: string;
  readonly wantedNick: string;
  /** The nick the latest join asked for. */
  nick: string;
  pendingJoin?: PendingJoin;
  /** When the room banned us (or last refused us as banned). */
  bannedAt?: number;
}

/**
 * Joins `room` under `room.nick`, then under the next nick each time the room says it is
 * taken: `attempt` sends one join and settles with the room's answer (see `awaitJoin`).
 * Rejects with the first failure that is not a taken nick, or the last one.
 */
export async function joinUnderFreeNick(room: JoiningRoom, log: Logger, attempt: () => Promise<void>): Promise<void> {
  for (let tried = 1; ; tried++) {
    try {
      await attempt();
      return;
    } catch (err) {
      if (!(err instanceof NickConflict) || tried >= MAX_NICK_ATTEMPTS) throw err;
      const next = `${room.wantedNick}-${tried + 1}`;
      log.warn({ room: room.jid, nick: room.nick, next }, "nick already taken in the room; trying another");
      room.nick = next;
    }
  }
}

/**
 * Sends the join presence under `room.nick`, carrying `history` (what the join asks the room
 * to give back, joinHistory), and settles with the answer: the self-presence resolves
 * `room.pendingJoin`, an error presence rejects it (`joinRefused`). A presence that could not
 * be sent, or no answer within JOIN_TIMEOUT_MS, rejects it too.
 */
export function awaitJoin(connection: XmppConnection, room: JoiningRoom, history: Element): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      room.pendingJoin = undefined;
      reject(new Error(`no answer from ${room.jid} within ${JOIN_TIMEOUT_MS} ms`));
    }, JOIN_TIMEOUT_MS);
    room.pendingJoin = {
      resolve: () => {
        clearTimeout(timer);
        resolve();
      },
      reject: (err) => {
        clearTimeout(timer);
        reject(err);
      },
    };
    const presence = xml("presence", { to: `${room.jid}/${room.nick}` }, history);
    void connection.send(presence).then((result) => {
      if (result !== "sent") room.pendingJoin?.reject(new Error(`join presence was ${result}`));
    });
  });
}

/**
 * The room answered a presence of ours under `nick` with an error: a pending join fails with
 * the reason (a taken nick as a NickConflict, for the next nick), and a refusal as forbidden
 * is noted as a ban (XEP-0045 §7.2.7). With no join pending, it is only logged.
 */
export function joinRefused(room: JoiningRoom, nick: string, stanza: Element, log: Logger): void {
  const error = stanza.getChild("error");
  const condition = error?.children.find((c): c is Element => typeof c !== "string" && c.attrs?.xmlns === NS_STANZAS)?.name ?? "unknown";
  if (!room.pendingJoin) {
    log.warn({ room: room.jid, nick, condition }, "presence error from the room");
    return;
  }
  const pending = room.pendingJoin;
  room.pendingJoin = undefined;
  room.bannedAt = condition === "forbidden" ? Date.now() : undefined;
  pending.reject(condition === "conflict" ? new NickConflict(nick) : new Error(`the room refused us: ${condition}`));
}

/** The room says the nick we asked for is someone else's: the join asks for the next one. */
class NickConflict extends Error {
  constructor(nick: string) {
    super(`nick ${nick} is taken`);
  }
}
