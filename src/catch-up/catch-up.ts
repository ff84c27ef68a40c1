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
import type { RoomHistory, Rooms } from "../xmpp/rooms.js";
import { splitJid, type Element } from "../xmpp/stanza.js";
import { heardKeys, MAX_CATCH_UP_MS, type HeardLog } from "../host/heard.js";
import { protocolKeepingOf } from "./protocol-keeping.js";
import type { Absences } from "./absences.js";
import type { OurRooms } from "../config/our-rooms.js";
import type { SessionHost } from "../host/session-host.js";
import type { ReplyOutlet } from "../inbound/context.js";
import type { InboundPipeline } from "../inbound/pipeline.js";
import type { UntilBack } from "../inbound/sent-while-away.js";
import type { OperationsMetrics } from "../ops/metrics.js";
import { clockTime } from "../base/clock-time.js";

/** Asked for before the last message heard, for clocks that differ (server and coordinator). */
/** Said once per live session when the room's history cannot reach back to what was last heard. */
export function mayHaveMissed(sessionId: string, from: number, to: number): string {
  return `${sessionId}: I may have missed messages in this room between ${clockTime(from)} and ${clockTime(to)} (UTC); agents that answered then, please send again.`;
}

export const HISTORY_MARGIN_MS = 30_000;

/** Live messages kept per room while its history is taken in (a flood meanwhile is dropped, and said). */
const MAX_WAITING_LIVE = 10_000;

/** How long after start the rooms may take to come back before a crash's unsent tail goes out without their history. */
export const FIRST_CATCH_UP_WAIT_MS = 30_000;

/**
 * What the catch-up works with, each given once at construction: it registers itself where it
 * takes part (the rooms ask it what history to request, the pipeline asks it whether a live
 * message waits) and hands what it took back to the pipeline, never through the entry.
 */
export interface CatchUpParts {
  heard: HeardLog;
  log: Logger;
  now: () => number;
  /** Rooms whose history is taken in (the log room is for people: it is not). */
  ourRooms: Pick<OurRooms, "isProtocolRoom">;
  /** Every room we stay in, whether it is in, and whether its history is still coming. */
  rooms: Pick<Rooms, "roomJids" | "isJoined" | "isTakingHistory" | "useHistoryPolicy">;
  /** The inbound path: takes one message and resolves once it is handled; live ones that waited go back through `dispatch`. */
  inbound: Pick<InboundPipeline, "take" | "dispatch" | "holdLiveWith">;
  /** Deadlines, held while a room is taken in; the live sessions, told of a gap; the restored tail, sent once all are back. */
  sessions: Pick<SessionHost, "fireDeadlinesDueBy" | "holdDeadlines" | "releaseDeadlines" | "liveSessions" | "sendRestoredTail" | "restoredTailSince">;
  /** Where the gap sentence goes (inbound/replies.ts). */
  replies: Pick<ReplyOutlet, "to">;
  /** 1:1 messages our server kept for us while we were away, answered once the rooms are back. */
  untilBack: Pick<UntilBack, "back">;
  /** Counts the messages each room's history gave that were taken in. */
  metrics?: Pick<OperationsMetrics, "caughtUp">;
  /**
   * Told of an absence from a protocol room that the room may not have covered (see
   * Absence), before its history is taken in, so a window the absence overlapped is extended
   * before a held deadline closes it.
   */
  absences?: Pick<Absences, "absent">;
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

  private firstWait: NodeJS.Timeout | undefined;

  constructor(private readonly options: CatchUpParts) {
    options.rooms.useHistoryPolicy((room) => this.historyFor(room));
    options.inbound.holdLiveWith(this);
  }

  /** From the start: the rooms have FIRST_CATCH_UP_WAIT_MS to come back before the restored tail goes out without them. */
  waitForRooms(waitMs = FIRST_CATCH_UP_WAIT_MS): void {
    this.firstWait = setTimeout(() => this.stopWaitingForRooms(), waitMs);
    this.firstWait.unref();
  }

  /** The history to ask a room for at a join (xmpp/rooms.ts HistoryPolicy). */
  historyFor(room: string): HistoryRequest {
    const { heard, now } = this.options;
    const lastHeard = heard.lastHeardAt(room);
    const presentUntil = heard.presentUntil(room);
    this.basis.set(room, { lastHeard, presentUntil });
    const heardUntil = lastHeard ?? presentUntil;
    if (heardUntil === undefined) return { kind: "none" };
    // What a crash kept from going out is checked against our own stanzas the room gives back
    // (sendRestoredTail): the read reaches back to the first of them, by the instant.
    const tailSince = this.options.sessions.restoredTailSince();
    const from = tailSince === undefined ? heardUntil : Math.min(heardUntil, tailSince);
    // Otherwise by position where the room gave us one (its archive id of the last message
    // taken in): the archive then reads from the next message on, whatever its size. The
    // instant, less a margin for the server's clock, is for the join's history and an archive
    // without that position.
    const after = lastHeard === undefined || from < heardUntil ? undefined : heard.lastStanzaId(room);
    return { kind: "since", since: Math.max(from - HISTORY_MARGIN_MS, now() - MAX_CATCH_UP_MS), ...(after !== undefined ? { after } : {}) };
  }

  /** A join is under way: deadlines wait until the room is caught up on. */
  joining(room: string): void {
    if (this.options.ourRooms.isProtocolRoom(room)) this.options.sessions.holdDeadlines();
  }

  /** The connection dropped: every room must be caught up on again. */
  disconnected(): void {
    this.options.sessions.holdDeadlines();
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
      // Read on from the last message taken in (the archive knew it), or holding one taken in before: it reaches back.
      const heardBefore = history.continuedAfter !== undefined || this.givesBackHeard(room, history);
      this.noteAbsence(room, history, basis, heardBefore);
      const counts = await this.takeAll(room, history);
      this.options.metrics?.caughtUp(counts.taken);
      if (counts.taken > 0 || history.request.kind === "since") {
        log.info(
          { room, caughtUp: counts.taken, alreadyTaken: counts.duplicate, from: history.source, after: history.continuedAfter ?? null, since: history.request.kind === "since" ? new Date(history.request.since).toISOString() : null, oldest: counts.oldest === undefined ? null : new Date(counts.oldest).toISOString() },
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
      for (const stanza of waiting) this.options.inbound.dispatch(stanza);
      this.settle();
    }
  }

  private async takeAll(room: string, history: RoomHistory): Promise<{ taken: number; duplicate: number; oldest: number | undefined }> {
    const { now, inbound, sessions } = this.options;
    let taken = 0;
    let duplicate = 0;
    let oldest: number | undefined;
    for (const stanza of history.messages) {
      if (this.stopped) break;
      // A stamp after our own clock (the server's runs ahead) counts as now.
      const stamped = roomStampOf(stanza, room);
      const stamp = stamped === undefined ? undefined : Math.min(stamped, now());
      if (stamp !== undefined) sessions.fireDeadlinesDueBy(stamp);
      const result = await inbound.take({ stanza, line: "room-connection", stamp: stamp ?? null });
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
   * protocol messages and gave back everything since we left (see CatchUpParts.absences).
   */
  private noteAbsence(room: string, history: RoomHistory, basis: { lastHeard: number | undefined; presentUntil: number | undefined } | undefined, heardBefore: boolean): void {
    const { absences, ourRooms, now } = this.options;
    if (!absences || !ourRooms.isProtocolRoom(room) || history.request.kind !== "since") return;
    const known = [basis?.lastHeard, basis?.presentUntil].filter((t): t is number => t !== undefined);
    if (known.length === 0) return;
    const kept = protocolKeepingOf(history.facts) === "kept";
    const reachedBack = !history.created && (basis?.lastHeard === undefined || heardBefore);
    if (kept && reachedBack) return;
    absences.absent(room, { from: Math.max(...known), to: history.joinedAt || now(), kept, reachedBack });
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
    // Said once per live session, in the room where the gap was.
    if (!this.options.ourRooms.isProtocolRoom(room)) return;
    for (const session of this.options.sessions.liveSessions()) await this.options.replies.to({ kind: "room", room }, mayHaveMissed(session.id, from, to));
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

  /**
   * Shutdown: the rooms that are in and caught up on are noted as heard until now (unless the
   * store takes no writes), so the next start asks them from here on; nothing is taken in after.
   */
  stop(storeReadonly: boolean): void {
    clearTimeout(this.firstWait);
    if (!storeReadonly) for (const room of this.options.rooms.roomJids()) if (this.isSettled(room)) this.markPresent(room);
    this.stopped = true;
  }

  /** A room that is in and done with its history, as the rooms see it. */
  private isSettled(room: string): boolean {
    return this.options.rooms.isJoined(room) && !this.options.rooms.isTakingHistory(room);
  }

  /**
   * Once, when every room is back (or the wait for them ran out): what a crash kept from going
   * out is sent, checked against our own stanzas the rooms gave back, and then the 1:1
   * messages sent while we were away are answered, so a late mfr-status tells what the rooms
   * said meanwhile and a late mfr-start finds us in the room.
   */
  private firstCaughtUp(): void {
    clearTimeout(this.firstWait);
    const { log, sessions, untilBack } = this.options;
    const tail = sessions.sendRestoredTail(new Set(this.carried));
    this.carried.clear();
    if (tail.sent + tail.skipped > 0) log.info(tail, "the rooms are caught up on; what a crash kept from going out is sent");
    const late = untilBack.back();
    if (late.waited > 0) log.info({ messages: late.waited }, "answering the 1:1 messages sent while we were away");
    if (late.dropped > 0) log.warn({ dropped: late.dropped }, "too many 1:1 messages sent while we were away waited for the rooms; the rest were not answered");
  }

  /**
   * The rooms did not all come back in time (one refuses us, say): what a crash kept from
   * going out is sent now, with what the rooms that did come back gave.
   */
  stopWaitingForRooms(): void {
    if (this.firstDone) return;
    this.firstDone = true;
    this.options.log.warn({ rooms: this.options.rooms.roomJids().filter((r) => !this.isSettled(r)) }, "not every room is back yet; sending what a crash kept from going out without their history");
    this.firstCaughtUp();
  }

  /** Deadlines run again once every protocol room is in and caught up on; the first time, the restored tail goes out. */
  private settle(): void {
    const rooms = this.options.rooms.roomJids();
    const protocolSettled = rooms.filter((r) => this.options.ourRooms.isProtocolRoom(r)).every((r) => this.isSettled(r) && !this.processing.has(r));
    // The restored tail first: a request a crash kept from going out is queued before a
    // deadline held meanwhile can close its window.
    if (!this.firstDone && rooms.every((r) => this.isSettled(r) && !this.processing.has(r))) {
      this.firstDone = true;
      this.firstCaughtUp();
    }
    if (protocolSettled) this.options.sessions.releaseDeadlines();
  }
}
