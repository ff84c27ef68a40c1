/**
 * No gap: what a room said while the coordinator was away (a restart, a reconnect, a kick)
 * is taken in once it is back, through the same inbound path as live messages, each message
 * once, counted at the instant the room stamped it.
 *
 * - At each join the room is asked for its history since we last heard it (`historyFor`):
 *   the newest message taken in from it, else when we were last known to hear it, less a
 *   margin for clocks; nothing for a room never heard.
 * - The history (xmpp/rooms.ts collects it up to the room's subject) is taken in order
 *   (`take`); a message already taken in is skipped there (host/heard.ts). Before each
 *   message, the deadlines that fell before its stamp fire, so a window still open when the
 *   room stamped an answer takes it, and one already closed refuses it as usual.
 * - Live messages from the room wait until its history is taken in (`holdsLive`).
 * - Deadlines wait (are held) while any protocol room is being joined or caught up on.
 * - A history that does not reach back to the last message heard, or a room that had to be
 *   created anew, is a gap: said once in the log and once in the room per live session.
 */
import type { Logger } from "pino";
import { roomStampOf } from "../xmpp/room-history.js";
import type { HistoryRequest } from "../xmpp/room-history.js";
import type { RoomHistory } from "../xmpp/rooms.js";
import { splitJid, type Element } from "../xmpp/stanza.js";
import { heardKeys, type HeardLog } from "../host/heard.js";
import { protocolKeepingOf } from "./protocol-keeping.js";

/** Asked for before the last message heard, for clocks that differ (server and coordinator). */
export const HISTORY_MARGIN_MS = 30_000;
/** History older than this is not asked for: what was said a day ago is not taken in as new. */
export const MAX_CATCH_UP_MS = 24 * 60 * 60 * 1000;

/** Live messages kept per room while its history is taken in (a flood meanwhile is dropped, and said). */
const MAX_WAITING_LIVE = 10_000;

/** What became of one message given back: taken in, already taken in before, or not input. */
export type Taken = "taken" | "duplicate" | "ignored";

/** What the catch-up is made with. */
export interface CatchUpOptions {
  heard: HeardLog;
  log: Logger;
  now: () => number;
  /** Rooms whose history is taken in (the log room is for people: it is not). */
  isProtocolRoom: (room: string) => boolean;
  /** The inbound path: takes one message (with its stamp when caught up) and resolves once it is handled. */
  take: (stanza: Element, stamp: number | undefined) => Promise<Taken>;
  /** Live messages that waited, handed on in order once the history is in. */
  takeLive: (stanza: Element) => void;
  /** Deadlines that fell at or before `at` fire now. */
  fireDeadlinesDueBy: (at: number) => void;
  holdDeadlines: () => void;
  releaseDeadlines: () => void;
  /** Whether a room is in and done with its history (as Rooms sees it). */
  isSettled: (room: string) => boolean;
  /** Every room we stay in. */
  rooms: () => string[];
  /** Says the gap in the room, once per live session there. */
  tellGap: (room: string, from: number, to: number) => Promise<void>;
  /** Once after the first time every room is caught up on, with our own stanzas the rooms gave back. */
  onFirstCaughtUp: (carried: ReadonlySet<string>) => void;
  /** After each room's catch-up, with how many messages were taken in from its history (the metrics count them). */
  onCaughtUp?: (room: string, taken: number) => void;
  /**
   * We were away from a protocol room from `from` to `to`, and cannot be sure the room gave
   * back everything agents said meanwhile (see Absence): told before the room's history is
   * taken in, so a window the absence overlapped is extended before a held deadline closes it.
   */
  onAbsence?: (room: string, absence: Absence) => void;
}

/** An absence from a room that the room may not have covered (see CatchUpOptions.onAbsence). */
export interface Absence {
  /** When we were last known to hear the room: the newest message taken in, or the end of the last catch-up or shutdown. */
  from: number;
  /** When our join was answered. */
  to: number;
  /** The room (or its service) says it keeps agents' protocol messages without a body (catch-up/protocol-keeping.ts). */
  kept: boolean;
  /** What the room gave back reaches the last message taken in before (or nothing was taken in before), and the room was not created anew. */
  reachedBack: boolean;
}

/** What each room said while we were away, taken in once at each join, with deadlines held meanwhile. */
export class RoomCatchUp {
  /** Rooms whose history is being taken in, with the live messages that wait for it. */
  private readonly processing = new Map<string, Element[]>();
  /** Own origin-ids the rooms gave back, until the first catch-up is complete. */
  private readonly carried = new Set<string>();
  private firstDone = false;
  /** Set at shutdown: nothing is taken in or written after it (the store is about to close). */
  private stopped = false;
  /** What each room's history request was based on, for the gap check. */
  private readonly basis = new Map<string, { lastHeard: number | undefined; presentUntil: number | undefined }>();

  constructor(private readonly options: CatchUpOptions) {}

  /** The history to ask a room for at a join (xmpp/rooms.ts HistoryPolicy). */
  historyFor(room: string): HistoryRequest {
    const { heard, now } = this.options;
    const lastHeard = heard.lastHeardAt(room);
    const presentUntil = heard.presentUntil(room);
    this.basis.set(room, { lastHeard, presentUntil });
    const from = lastHeard ?? presentUntil;
    if (from === undefined) return { kind: "none" };
    return { kind: "since", since: Math.max(from - HISTORY_MARGIN_MS, now() - MAX_CATCH_UP_MS) };
  }

  /** A join is under way: deadlines wait until the room is caught up on. */
  joining(room: string): void {
    if (this.options.isProtocolRoom(room)) this.options.holdDeadlines();
  }

  /** The connection dropped: every room must be caught up on again. */
  disconnected(): void {
    this.options.holdDeadlines();
  }

  /** Whether a live message from this room must wait for its history (it is kept, and handed on later). */
  holdsLive(stanza: Element): boolean {
    const room = splitJid(String(stanza.attrs.from ?? "")).bare.toLowerCase();
    const waiting = this.processing.get(room);
    if (!waiting) return false;
    if (waiting.length < MAX_WAITING_LIVE) waiting.push(stanza);
    else this.options.log.warn({ room, from: stanza.attrs.from }, "too many live messages waiting for the room's history to be taken in; this one is dropped");
    return true;
  }

  /** Takes in what a room gave back at a join. Never throws. */
  async took(room: string, history: RoomHistory): Promise<void> {
    const { log } = this.options;
    if (this.stopped) return;
    // Only the first catch-up after a start has a restored tail to check against.
    if (!this.firstDone) for (const id of history.ownOriginIds) this.carried.add(id);
    this.processing.set(room, []);
    try {
      const basis = this.basis.get(room);
      const heardBefore = this.givesBackHeard(room, history);
      this.noteAbsence(room, history, basis, heardBefore);
      const counts = await this.takeAll(room, history);
      this.options.onCaughtUp?.(room, counts.taken);
      if (counts.taken > 0 || history.request.kind === "since") {
        log.info(
          { room, caughtUp: counts.taken, alreadyTaken: counts.duplicate, from: history.source, since: history.request.kind === "since" ? new Date(history.request.since).toISOString() : null, oldest: counts.oldest === undefined ? null : new Date(counts.oldest).toISOString() },
          `caught up on ${counts.taken} message(s) the room said while we were away`,
        );
      }
      await this.checkGap(room, history, basis, heardBefore);
      this.markPresent(room);
    } catch (err) {
      log.error({ err, room }, "catching up on the room failed");
    } finally {
      const waiting = this.processing.get(room) ?? [];
      this.processing.delete(room);
      for (const stanza of waiting) this.options.takeLive(stanza);
      this.settle();
    }
  }

  private async takeAll(room: string, history: RoomHistory): Promise<{ taken: number; duplicate: number; oldest: number | undefined }> {
    const { now, take, fireDeadlinesDueBy } = this.options;
    let taken = 0;
    let duplicate = 0;
    let oldest: number | undefined;
    for (const stanza of history.messages) {
      if (this.stopped) break;
      // A stamp after our own clock (the server's runs ahead) counts as now.
      const stamped = roomStampOf(stanza, room);
      const stamp = stamped === undefined ? undefined : Math.min(stamped, now());
      if (stamp !== undefined) fireDeadlinesDueBy(stamp);
      const result = await take(stanza, stamp);
      if (result === "duplicate") duplicate++;
      if (result !== "taken" || stamp === undefined) continue;
      taken++;
      oldest = Math.min(oldest ?? stamp, stamp);
    }
    return { taken, duplicate, oldest };
  }

  /** Whether what the room gave back holds a message taken in before: then it reaches back to where we left it. */
  private givesBackHeard(room: string, history: RoomHistory): boolean {
    const { heard, log } = this.options;
    try {
      return history.messages.some((stanza) => {
        const nick = splitJid(String(stanza.attrs.from ?? "")).resource ?? "";
        return heard.heardBefore(room, heardKeys(room, nick, stanza));
      });
    } catch (err) {
      log.warn({ err, room }, "could not look up whether the room's history reaches back; taking it that it does not");
      return false;
    }
  }

  /**
   * Tells of an absence from a protocol room unless the room is known to keep agents'
   * protocol messages and gave back everything since we left (see CatchUpOptions.onAbsence).
   */
  private noteAbsence(room: string, history: RoomHistory, basis: { lastHeard: number | undefined; presentUntil: number | undefined } | undefined, heardBefore: boolean): void {
    const { onAbsence, isProtocolRoom, now } = this.options;
    if (!onAbsence || !isProtocolRoom(room) || history.request.kind !== "since") return;
    const known = [basis?.lastHeard, basis?.presentUntil].filter((t): t is number => t !== undefined);
    if (known.length === 0) return;
    const kept = protocolKeepingOf(history.facts) === "kept";
    const reachedBack = !history.created && (basis?.lastHeard === undefined || heardBefore);
    if (kept && reachedBack) return;
    onAbsence(room, { from: Math.max(...known), to: history.joinedAt || now(), kept, reachedBack });
  }

  /**
   * A gap: the room was created anew by our join though we had heard it before (what it held
   * is gone), or it gave back history that does not reach the last message we took in.
   */
  private async checkGap(room: string, history: RoomHistory, basis: { lastHeard: number | undefined; presentUntil: number | undefined } | undefined, reachedBack: boolean): Promise<void> {
    const from = basis?.lastHeard ?? basis?.presentUntil;
    if (from === undefined || history.request.kind !== "since") return;
    const recreated = history.created;
    const short = basis?.lastHeard !== undefined && !reachedBack;
    if (!recreated && !short) return;
    const to = history.joinedAt || this.options.now();
    this.options.log.warn(
      { room, from: new Date(from).toISOString(), to: new Date(to).toISOString(), why: recreated ? "the room was created anew" : "its history does not reach back to the last message taken in" },
      "may have missed what the room said while we were away: the server did not keep it",
    );
    if (this.options.isProtocolRoom(room)) await this.options.tellGap(room, from, to);
  }

  /** Until when we heard a room: its catch-up is done, and at shutdown. */
  markPresent(room: string): void {
    if (this.stopped) return;
    try {
      this.options.heard.markPresent(room, this.options.now());
    } catch (err) {
      this.options.log.warn({ err, room }, "could not note when the room was last heard");
    }
  }

  /** Shutdown: the rooms are noted as heard until now, and nothing is taken in after. */
  stop(rooms: readonly string[]): void {
    for (const room of rooms) this.markPresent(room);
    this.stopped = true;
  }

  /**
   * The rooms did not all come back in time (one refuses us, say): what a crash kept from
   * going out is sent now, with what the rooms that did come back gave.
   */
  stopWaitingForRooms(): void {
    if (this.firstDone) return;
    this.firstDone = true;
    this.options.log.warn({ rooms: this.options.rooms().filter((r) => !this.options.isSettled(r)) }, "not every room is back yet; sending what a crash kept from going out without their history");
    this.options.onFirstCaughtUp(new Set(this.carried));
    this.carried.clear();
  }

  /** Deadlines run again once every protocol room is in and caught up on; the first time, the restored tail goes out. */
  private settle(): void {
    const rooms = this.options.rooms();
    const protocolSettled = rooms.filter((r) => this.options.isProtocolRoom(r)).every((r) => this.options.isSettled(r) && !this.processing.has(r));
    // The restored tail first: a request a crash kept from going out is queued before a
    // deadline held meanwhile can close its window.
    if (!this.firstDone && rooms.every((r) => this.options.isSettled(r) && !this.processing.has(r))) {
      this.firstDone = true;
      this.options.onFirstCaughtUp(new Set(this.carried));
      this.carried.clear();
    }
    if (protocolSettled) this.options.releaseDeadlines();
  }
}
