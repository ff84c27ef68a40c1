/**
 * Leaving a room on purpose (at a shutdown): our unavailable presence goes out, and we wait,
 * briefly, for the room to confirm, so the presence is through before the stream closes and
 * the room's answer is not mistaken for being put out.
 */
import type { XmppConnection } from "./connection.js";
import { xml } from "./stanza.js";

/** How long a shutdown waits for each room to confirm we left before the stream closes anyway. */
export const LEAVE_CONFIRM_MS = 1500;

/** A room as leaving it sees and updates it. */
export interface LeavingRoom {
  readonly jid: string;
  readonly nick: string;
  joined: boolean;
  /** Set while we leave: the room's answer (our unavailable self-presence) calls `done`. */
  leaving?: { done: () => void };
}

/** Leaves `room` and resolves once it confirmed, or after `confirmWithinMs`, or at once when the presence was not sent. */
export async function leaveRoom(connection: XmppConnection, room: LeavingRoom, confirmWithinMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const confirmed = new Promise<void>((resolve) => {
    room.leaving = { done: resolve };
    timer = setTimeout(resolve, confirmWithinMs);
  });
  const sent = await connection.send(xml("presence", { to: `${room.jid}/${room.nick}`, type: "unavailable" }));
  if (sent === "sent") await confirmed;
  clearTimeout(timer);
  room.joined = false;
}
