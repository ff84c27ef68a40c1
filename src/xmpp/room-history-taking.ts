/**
 * What a room gives back at each join of what was said while we were away: the join's
 * history up to the subject (XEP-0045 §7.2.15), or the room's archive read page by page
 * after the join (XEP-0313) where it has one. The rule it keeps: a join's history is handed
 * on once, whole (the `history` event) and only when every part of it is over (the subject
 * came or the room went quiet, and the archive is read); our own messages among it are
 * counted by origin-id, not kept; a join that does not complete drops what it had, and the
 * next join takes it again.
 */
import type { Logger } from "pino";
import type { XmppConnection } from "./connection.js";
import { originIdInText, originIdOf, type HistoryRequest } from "./room-history.js";
import { archiveQuery, archivedMessageOf, finOf, isArchiveResult } from "./room-archive.js";
import { bareJid, splitJid, type Element } from "./stanza.js";
import type { RoomFacts } from "./room-facts.js";

/**
 * What a room gave back at a join, up to its subject (which XEP-0045 sends after the history):
 * the messages of others, in the order given (the room's history, and anything said live
 * before the subject), and the origin-ids of our own messages among them.
 */
export interface RoomHistory {
  request: HistoryRequest;
  messages: Element[];
  /** Origin-ids of what we said that the room gave back: it carried those stanzas. */
  ownOriginIds: Set<string>;
  /** The room did not exist and was created by our join (status 201): whatever it had is gone. */
  created: boolean;
  /** When our join was answered. */
  joinedAt: number;
  /** Where it came from: the room's archive (XEP-0313) or the join's history (XEP-0045). */
  source: "archive" | "join";
  /** What the room and its service said of themselves at this join (room-facts.ts); absent when they were not asked. */
  facts?: RoomFacts | undefined;
  /** The archive id the archive was read after (the request's `after`, which the archive knew): what came reaches back to it. */
  continuedAfter?: string;
}

/** What decides the history asked for at each join (the coordinator: since it last heard the room). */
export type HistoryPolicy = (room: string) => HistoryRequest;

/** The subject should follow the history at once; a room that sends none is taken as done after this long. */
const HISTORY_QUIET_MS = 3000;
/** Most messages kept from one join's history; more are counted, not kept. */
const MAX_HISTORY_MESSAGES = 5000;

/** Pages of a room's archive read at one join at most (with MAX_HISTORY_MESSAGES). */
const MAX_ARCHIVE_PAGES = 50;
/** How long one page of the archive may take. */
const ARCHIVE_PAGE_TIMEOUT_MS = 10_000;

/** One join's history while it is being given back. */
export interface HistoryCollection {
  request: HistoryRequest;
  messages: Element[];
  ownOriginIds: Set<string>;
  dropped: number;
  created: boolean;
  joinedAt: number;
  timer?: NodeJS.Timeout;
  /** The room's subject came (or none came in time): the join's part is over. */
  subjectSeen: boolean;
  /** Where the room has an archive: our query, read page by page after the join. */
  archive?: { queryId: string; pending: boolean };
  /** Set once the archive answered a read from the request's `after`: it knew that message. */
  continuedAfter?: string;
}

/** A room as the history-taking sees it. */
export interface HistoryRoom {
  readonly jid: string;
  readonly nick: string;
  readonly wantedNick: string;
  readonly joined: boolean;
  /** From a join until the room's subject: the history it gives back. */
  history?: HistoryCollection;
}

/** Takes each join's history of the rooms `roomAt` finds (by lower-case bare JID) and hands it to `done`. */
export class HistoryTaking {
  /** Numbers our archive queries (their queryid), so results are matched to the query that asked. */
  private archiveQueries = 0;

  constructor(
    private readonly connection: XmppConnection,
    private readonly log: Logger,
    private readonly roomAt: (jid: string) => HistoryRoom | undefined,
    private readonly done: (room: string, history: RoomHistory) => void,
  ) {}

  /** Starts collecting a join's history (dropping any earlier one), from the archive when `archived`. */
  begin(room: HistoryRoom, request: HistoryRequest, archived: boolean): void {
    this.drop(room);
    room.history = {
      request,
      messages: [],
      ownOriginIds: new Set(),
      dropped: 0,
      created: false,
      joinedAt: 0,
      subjectSeen: false,
      ...(archived ? { archive: { queryId: `catch-up-${++this.archiveQueries}`, pending: true } } : {}),
    };
  }

  /** Our own echo, still unparsed, in a room: its origin-id counts as ours while the history is taken. */
  noteOwnEchoText(roomJid: string, raw: string): void {
    const history = this.roomAt(roomJid)?.history;
    if (history) {
      const id = originIdInText(raw);
      if (id !== undefined) history.ownOriginIds.add(id);
    }
  }

  /**
   * Feeds a message stanza from one of our rooms while its history is being given back:
   * returns true when it belonged to that history (kept for the `history` event, or the
   * subject that ends it). Other messages are left to the caller.
   */
  take(stanza: Element): boolean {
    if (isArchiveResult(stanza)) return this.takeArchived(stanza);
    if (stanza.attrs.type !== "groupchat") return false;
    const { bare, resource } = splitJid(String(stanza.attrs.from ?? ""));
    const room = this.roomAt(bare.toLowerCase());
    const history = room?.history;
    if (!room || !history) return false;
    // XEP-0045 §7.2.15: the subject comes last, after the history.
    if (stanza.getChild("subject") !== undefined && stanza.getChild("body") === undefined) {
      if (room.joined) this.partDone(room, "subject");
      return true;
    }
    if (resource === undefined || resource === "") return true;
    // Ours, under the nick we have now or the one we asked for (a restart may have had to take another).
    if (resource === room.nick || resource === room.wantedNick) {
      const id = originIdOf(stanza);
      if (id !== undefined) history.ownOriginIds.add(id);
      return true;
    }
    if (history.messages.length < MAX_HISTORY_MESSAGES) history.messages.push(stanza);
    else history.dropped++;
    if (room.joined) this.awaitSubject(room, history);
    return true;
  }

  /**
   * One message of the room's archive, in answer to our query: kept as history (with the
   * archive's instant and id as the room's delay and stanza-id); one of ours is read for its
   * origin-id. A result that is not for our query, or not from the room, is dropped.
   */
  private takeArchived(stanza: Element): boolean {
    const room = this.roomAt(bareJid(String(stanza.attrs.from ?? "")));
    const history = room?.history;
    if (!room || !history?.archive) return true;
    const message = archivedMessageOf(stanza, room.jid, history.archive.queryId);
    if (!message) return true;
    const { resource } = splitJid(String(message.attrs.from ?? ""));
    if (resource === undefined || resource === "") return true;
    if (resource === room.nick || resource === room.wantedNick) {
      const id = originIdOf(message);
      if (id !== undefined) history.ownOriginIds.add(id);
      return true;
    }
    if (history.messages.length < MAX_HISTORY_MESSAGES) history.messages.push(message);
    else history.dropped++;
    return true;
  }

  /** Our join was answered (the first self-presence): the history follows, then the subject; the archive is read now. */
  joined(room: HistoryRoom, created: boolean): void {
    const history = room.history;
    if (!history) return;
    history.created = created;
    history.joinedAt = Date.now();
    // The history follows our presence, then the subject; a room that sends neither is done when quiet.
    this.awaitSubject(room, history);
    if (history.archive) void this.readArchive(room, history);
  }

  /** A join that did not complete: what its history gave is taken again at the next join. */
  drop(room: HistoryRoom): void {
    clearTimeout(room.history?.timer);
    room.history = undefined;
  }

  /**
   * Reads what the room's archive holds after the join (XEP-0313), page by page: from the
   * message after the last one taken in (the request's `after`), or, where the archive does
   * not know that one (purged, or no position was kept), from the request's instant on. A page
   * that fails ends the reading with what came; the catch-up then says a gap if it did not
   * reach back.
   */
  private async readArchive(room: HistoryRoom, history: HistoryCollection): Promise<void> {
    const { archive, request } = history;
    if (!archive || request.kind !== "since") return;
    let since = request.after === undefined ? request.since : undefined;
    let after = request.after;
    for (let page = 0; page < MAX_ARCHIVE_PAGES && room.history === history; page++) {
      const answer = await this.connection.iqSet(room.jid, archiveQuery(archive.queryId, since, after), ARCHIVE_PAGE_TIMEOUT_MS);
      if (!answer.ok && page === 0 && since === undefined) {
        this.log.info({ room: room.jid, after, err: answer.error }, "the room's archive does not know the last message taken in; reading it from the instant instead");
        since = request.since;
        after = undefined;
        page = -1;
        continue;
      }
      if (!answer.ok) {
        this.log.warn({ room: room.jid, err: answer.error, taken: history.messages.length }, "could not read the room's archive; taking what came");
        break;
      }
      if (page === 0 && since === undefined) history.continuedAfter = request.after;
      const fin = finOf(answer.result);
      if (fin.complete || fin.last === undefined || history.messages.length >= MAX_HISTORY_MESSAGES) break;
      after = fin.last;
    }
    if (room.history !== history) return;
    archive.pending = false;
    this.partDone(room, "archive");
  }

  private awaitSubject(room: HistoryRoom, history: HistoryCollection): void {
    clearTimeout(history.timer);
    history.timer = setTimeout(() => {
      this.log.info({ room: room.jid }, "the room sent no subject after its history; taking what came as all of it");
      this.partDone(room, "subject");
    }, HISTORY_QUIET_MS);
    history.timer.unref();
  }

  /** The join's history ends at the subject, and the archive's once it is read; both, where there is one. */
  private partDone(room: HistoryRoom, part: "subject" | "archive"): void {
    const history = room.history;
    if (!history) return;
    if (part === "subject") {
      history.subjectSeen = true;
      clearTimeout(history.timer);
    }
    if (history.subjectSeen && !history.archive?.pending) this.end(room);
  }

  private end(room: HistoryRoom): void {
    const history = room.history;
    if (!history) return;
    clearTimeout(history.timer);
    room.history = undefined;
    if (history.dropped > 0) this.log.warn({ room: room.jid, kept: history.messages.length, dropped: history.dropped }, "the room gave back more history than is kept; the oldest are taken in, the rest are not");
    this.done(room.jid, {
      request: history.request,
      messages: history.messages,
      ownOriginIds: history.ownOriginIds,
      created: history.created,
      joinedAt: history.joinedAt,
      source: history.archive ? "archive" : "join",
      ...(history.continuedAfter !== undefined ? { continuedAfter: history.continuedAfter } : {}),
    });
  }
}
