import { EventEmitter } from "node:events";
import type { Logger } from "pino";
import type { XmppConnection } from "./connection.js";
import { selfPingVerdict, type KeepAliveTiming } from "./keep-alive.js";
import { NS_OCCUPANT_ID, NickLineages, identityOf } from "./occupant-identity.js";
import { startTag } from "./raw-stanza.js";
import { configFormQuery, configSubmission, formFields, wantedRoomConfig } from "./room-config.js";
import { joinHistory, originIdInText, originIdOf, type HistoryRequest } from "./room-history.js";
import { NS_MAM, archiveQuery, archivedMessageOf, finOf, isArchiveResult } from "./room-archive.js";
import { NS_MUC_USER, NS_STANZAS, bareJid, splitJid, xml, type Element } from "./stanza.js";


export interface Occupant {
  nick: string;
  /** The occupant's real bare JID, when the room reveals it. */
  realJid: string | undefined;
  /** The XEP-0421 occupant id the room stamps, when it does. */
  occupantId: string | undefined;
  /** Who this occupant is across renames (see occupant-identity.ts); never just the nick. */
  identity: string;
  /** Nicks this occupant had before renaming to the current one, oldest first. */
  formerNicks: string[];
  role: string | undefined;
  affiliation: string | undefined;
}

/** What a room reveals about who its occupants are, as seen when we joined. */
export interface RoomIdentities {
  /** The room stamps XEP-0421 occupant ids. */
  occupantIds: boolean;
  /** We see occupants' real JIDs (non-anonymous room, or we moderate a semi-anonymous one). */
  realJids: boolean;
}

export interface RoomsEventMap {
  joined: [room: string, nick: string];
  occupantJoined: [room: string, occupant: Occupant];
  occupantLeft: [room: string, nick: string];
  /** After each join: how occupants can be told apart in this room. */
  identities: [room: string, identities: RoomIdentities];
  /** A join of the room is about to be sent (at start, after a reconnect, a kick, a lost room). */
  joining: [room: string];
  /** After each join: what the room gave back of what was said while we were away (RoomHistory). */
  history: [room: string, history: RoomHistory];
}

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
}

/** What decides the history asked for at each join (the coordinator: since it last heard the room). */
export type HistoryPolicy = (room: string) => HistoryRequest;

/** The subject should follow the history at once; a room that sends none is taken as done after this long. */
const HISTORY_QUIET_MS = 3000;
/** Most messages kept from one join's history; more are counted, not kept. */
const MAX_HISTORY_MESSAGES = 5000;

interface HistoryCollection {
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
}

/** Pages of a room's archive read at one join at most (with MAX_HISTORY_MESSAGES). */
const MAX_ARCHIVE_PAGES = 50;
/** How long one page of the archive may take. */
const ARCHIVE_PAGE_TIMEOUT_MS = 10_000;

const JOIN_TIMEOUT_MS = 10_000;
const MAX_NICK_ATTEMPTS = 9;

interface RoomState {
  jid: string;
  wantedNick: string;
  nick: string;
  joined: boolean;
  occupants: Map<string, Occupant>;
  lineages: NickLineages;
  /** Occupants that announced a rename (303), under their new nick, until its presence comes. */
  renaming: Map<string, Occupant>;
  /** Set once we configured the room we created as non-anonymous. */
  madeNonAnonymous: boolean;
  /** As seen at the latest join. */
  identities: RoomIdentities | undefined;
  pendingJoin?: { resolve: () => void; reject: (err: Error) => void };
  /** When the room banned us (or last refused us as banned): the keep-alive knocks again only after a while (a reconnect tries at once). */
  bannedAt?: number;
  /** After being put out (kicked, the room went away): the keep-alive leaves the room to the pause before rejoining. */
  rejoinNotBefore?: number;
  /** Set while we leave on purpose (shutdown): the room's answer is then expected, not news. */
  leaving?: { done: () => void };
  /** From a join until the room's subject: the history it gives back. */
  history?: HistoryCollection;
}

/** How long we wait before joining a room that put us out (kicked us, or went away). */
const REJOIN_PAUSE_MS = 5000;

/** How long a shutdown waits for each room to confirm we left before the stream closes anyway. */
const LEAVE_CONFIRM_MS = 1500;

/**
 * The MUC rooms we are in (XEP-0045): joins with no history, waits for the self-presence
 * (status 110), takes another nick on conflict, rejoins after every reconnect (the server
 * does not remember us, and may have lost non-persistent rooms), and tracks occupants.
 */
export class Rooms extends EventEmitter<RoomsEventMap> {
  private readonly rooms = new Map<string, RoomState>();
  private closing = false;
  /** Numbers our archive queries (their queryid), so results are matched to the query that asked. */
  private archiveQueries = 0;

  constructor(
    private readonly connection: XmppConnection,
    private readonly log: Logger,
    /** Without one, no history is asked for (maxstanzas=0). */
    private readonly historyPolicy: HistoryPolicy = () => ({ kind: "none" }),
  ) {
    super();
    // The room sends every message we say back to us; a model part comes back as large as it
    // went out (200 KB), and parsing it only to ignore it cost main-thread time. One given
    // back as history is read for its origin-id only.
    connection.skipUnread((raw) => this.isOwnEchoText(raw));
  }

  /** A groupchat message said by our own occupant in one of our rooms: the room's echo of what we said. */
  isOwnEcho(type: string, from: string): boolean {
    if (type !== "groupchat") return false;
    const { bare, resource } = splitJid(from);
    return resource !== undefined && resource !== "" && resource === this.nickIn(bare);
  }

  /** isOwnEcho, read from a stanza's text before it is parsed (a text that is no message start tag is not). */
  private isOwnEchoText(raw: string): boolean {
    if (!raw.startsWith("<message")) return false;
    const tag = startTag(raw);
    if (tag === null || tag.name !== "message" || !this.isOwnEcho(tag.attrs.type ?? "", tag.attrs.from ?? "")) return false;
    const history = this.rooms.get(bareJid(tag.attrs.from ?? ""))?.history;
    if (history) {
      const id = originIdInText(raw);
      if (id !== undefined) history.ownOriginIds.add(id);
    }
    return true;
  }

  /**
   * Feeds a message stanza from one of our rooms while its history is being given back:
   * returns true when it belonged to that history (kept for the `history` event, or the
   * subject that ends it). Other messages are left to the caller.
   */
  takeHistory(stanza: Element): boolean {
    if (isArchiveResult(stanza)) return this.takeArchived(stanza);
    if (stanza.attrs.type !== "groupchat") return false;
    const { bare, resource } = splitJid(String(stanza.attrs.from ?? ""));
    const room = this.rooms.get(bare.toLowerCase());
    const history = room?.history;
    if (!room || !history) return false;
    // XEP-0045 §7.2.15: the subject comes last, after the history.
    if (stanza.getChild("subject") !== undefined && stanza.getChild("body") === undefined) {
      if (room.joined) this.historyPartDone(room, "subject");
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
    const room = this.rooms.get(bareJid(String(stanza.attrs.from ?? "")));
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

  /**
   * Reads what the room's archive holds from the history request's instant on, page by page,
   * after the join (XEP-0313). A page that fails ends the reading with what came; the
   * catch-up then says a gap if it did not reach back.
   */
  private async readArchive(room: RoomState, history: HistoryCollection): Promise<void> {
    const { archive, request } = history;
    if (!archive || request.kind !== "since") return;
    let after: string | undefined;
    for (let page = 0; page < MAX_ARCHIVE_PAGES && room.history === history; page++) {
      const answer = await this.connection.iqSet(room.jid, archiveQuery(archive.queryId, request.since, after), ARCHIVE_PAGE_TIMEOUT_MS);
      if (!answer.ok) {
        this.log.warn({ room: room.jid, err: answer.error, taken: history.messages.length }, "could not read the room's archive; taking what came");
        break;
      }
      const fin = finOf(answer.result);
      if (fin.complete || fin.last === undefined || history.messages.length >= MAX_HISTORY_MESSAGES) break;
      after = fin.last;
    }
    if (room.history !== history) return;
    archive.pending = false;
    this.historyPartDone(room, "archive");
  }

  /** Whether a room's history is still being given back (its messages wait for the `history` event). */
  isTakingHistory(roomJid: string): boolean {
    return this.rooms.get(bareJid(roomJid))?.history !== undefined;
  }

  private awaitSubject(room: RoomState, history: HistoryCollection): void {
    clearTimeout(history.timer);
    history.timer = setTimeout(() => {
      this.log.info({ room: room.jid }, "the room sent no subject after its history; taking what came as all of it");
      this.historyPartDone(room, "subject");
    }, HISTORY_QUIET_MS);
    history.timer.unref();
  }

  /** The join's history ends at the subject, and the archive's once it is read; both, where there is one. */
  private historyPartDone(room: RoomState, part: "subject" | "archive"): void {
    const history = room.history;
    if (!history) return;
    if (part === "subject") {
      history.subjectSeen = true;
      clearTimeout(history.timer);
    }
    if (history.subjectSeen && !history.archive?.pending) this.endHistory(room);
  }

  private endHistory(room: RoomState): void {
    const history = room.history;
    if (!history) return;
    clearTimeout(history.timer);
    room.history = undefined;
    if (history.dropped > 0) this.log.warn({ room: room.jid, kept: history.messages.length, dropped: history.dropped }, "the room gave back more history than is kept; the oldest are taken in, the rest are not");
    this.emit("history", room.jid, { request: history.request, messages: history.messages, ownOriginIds: history.ownOriginIds, created: history.created, joinedAt: history.joinedAt, source: history.archive ? "archive" : "join" });
  }

  /** Adds a room to the set we stay in and joins it now if we are online. */
  async enter(roomJid: string, nick: string): Promise<void> {
    const jid = bareJid(roomJid);
    this.rooms.set(jid, { jid, wantedNick: nick, nick, joined: false, occupants: new Map(), lineages: new NickLineages(), renaming: new Map(), madeNonAnonymous: false, identities: undefined });
    if (this.connection.online) await this.join(jid);
  }

  /** Joins every room again; called on each `online`. Failures are logged, never thrown. */
  async rejoinAll(): Promise<void> {
    if (this.closing) return;
    await Promise.all(
      [...this.rooms.keys()].map((jid) =>
        this.join(jid).catch((err: Error) => this.log.error({ room: jid, err: err.message }, "could not join the room")),
      ),
    );
  }

  /** Marks every room as left; called when the connection drops. */
  markDisconnected(): void {
    for (const room of this.rooms.values()) this.forgetPresence(room, "disconnected while joining");
  }

  /**
   * Makes sure we are in every room we mean to be in (keep-alive.ts). A room we are not in
   * (a join that failed or timed out after a reconnect) is joined again; in one we think we
   * are in, we ping our own occupant (XEP-0410), and a room that no longer counts us (its
   * service restarted and lost us without a word) is joined again. A room being joined or
   * left is left alone, and one that banned us until `bannedRetryMs` has passed. Never throws.
   */
  async check(timing: Pick<KeepAliveTiming, "probeTimeoutMs" | "bannedRetryMs">): Promise<void> {
    if (!this.connection.online) return;
    await Promise.all([...this.rooms.values()].map((room) => this.checkRoom(room, timing)));
  }

  private async checkRoom(room: RoomState, { probeTimeoutMs: timeoutMs, bannedRetryMs }: Pick<KeepAliveTiming, "probeTimeoutMs" | "bannedRetryMs">): Promise<void> {
    if (this.closing || room.pendingJoin || room.leaving) return;
    const now = Date.now();
    if (!room.joined && (now < (room.rejoinNotBefore ?? 0) || (room.bannedAt !== undefined && now < room.bannedAt + bannedRetryMs))) return;
    if (room.joined) {
      const nick = room.nick;
      const answer = await this.connection.ping(`${room.jid}/${nick}`, timeoutMs);
      const verdict = selfPingVerdict(answer);
      if (verdict === "unknown") this.log.debug({ room: room.jid, answer: answer.kind }, "the room did not say whether we are still in it; asking again later");
      // A join, a leave or a drop since the ping went out settled the question already.
      if (verdict !== "out" || !room.joined || room.nick !== nick || room.pendingJoin || room.leaving) return;
      this.log.warn({ room: room.jid, nick, condition: answer.kind === "error" ? answer.condition : undefined }, "the room no longer counts us as an occupant; joining again");
      this.forgetPresence(room, "left while joining");
    } else if (room.bannedAt !== undefined) {
      this.log.info({ room: room.jid, bannedAt: new Date(room.bannedAt).toISOString() }, "trying again the room that banned us, in case the ban was lifted");
    } else {
      this.log.info({ room: room.jid }, "not in the room; joining again");
    }
    await this.join(room.jid).catch((err: Error) => this.log.error({ room: room.jid, err: err.message }, "could not join the room"));
  }

  /** What we knew of a room's occupants goes; a pending join fails with `why`. */
  private forgetPresence(room: RoomState, why: string): void {
    room.joined = false;
    this.dropHistory(room);
    room.lineages.suspend(room.occupants.values());
    room.occupants.clear();
    room.renaming.clear();
    room.pendingJoin?.reject(new Error(why));
    room.pendingJoin = undefined;
  }

  /**
   * Leaves every room on purpose (shutdown) and waits, briefly, for each room to confirm, so
   * the unavailable presences are through before the stream closes and the confirmations are
   * not mistaken for being thrown out.
   */
  async leaveAll(confirmWithinMs = LEAVE_CONFIRM_MS): Promise<void> {
    // For good: nothing joins again after this (the kick pause's timer, a keep-alive check).
    this.closing = true;
    const leaving = [...this.rooms.values()].filter((room) => room.joined).map((room) => this.leave(room, confirmWithinMs));
    await Promise.all(leaving);
  }

  private async leave(room: RoomState, confirmWithinMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const confirmed = new Promise<void>((resolve) => {
      room.leaving = { done: resolve };
      timer = setTimeout(resolve, confirmWithinMs);
    });
    const sent = await this.connection.send(xml("presence", { to: `${room.jid}/${room.nick}`, type: "unavailable" }));
    if (sent === "sent") await confirmed;
    clearTimeout(timer);
    room.joined = false;
  }

  nickIn(roomJid: string): string | undefined {
    return this.rooms.get(bareJid(roomJid))?.nick;
  }

  isJoined(roomJid: string): boolean {
    return this.rooms.get(bareJid(roomJid))?.joined ?? false;
  }

  occupants(roomJid: string): Occupant[] {
    return [...(this.rooms.get(bareJid(roomJid))?.occupants.values() ?? [])];
  }

  occupant(roomJid: string, nick: string): Occupant | undefined {
    return this.rooms.get(bareJid(roomJid))?.occupants.get(nick);
  }

  /** How occupants of a room can be told apart, as seen at the latest join (undefined before). */
  identities(roomJid: string): RoomIdentities | undefined {
    return this.rooms.get(bareJid(roomJid))?.identities;
  }

  /** The bare JIDs of every room we stay in (joined or rejoining). */
  roomJids(): string[] {
    return [...this.rooms.keys()];
  }

  isRoom(jid: string): boolean {
    return this.rooms.has(bareJid(jid));
  }

  /** Feeds a presence stanza; returns true when it belonged to one of our rooms. */
  handlePresence(stanza: Element): boolean {
    const from = String(stanza.attrs.from ?? "");
    const { bare, resource } = splitJid(from);
    const room = this.rooms.get(bare.toLowerCase());
    if (!room || resource === undefined) return false;

    if (stanza.attrs.type === "error") {
      this.onJoinError(room, resource, stanza);
      return true;
    }

    const x = stanza.getChild("x", NS_MUC_USER);
    const statuses = new Set((x?.getChildren("status") ?? []).map((s: Element) => String(s.attrs.code)));
    const item = x?.getChild("item");
    const unavailable = stanza.attrs.type === "unavailable";

    if (statuses.has("110")) {
      this.onSelfPresence(room, resource, unavailable, statuses, stanza);
      return true;
    }
    const previous = room.occupants.get(resource);
    if (unavailable) {
      const newNick = statuses.has("303") && item?.attrs.nick ? String(item.attrs.nick) : undefined;
      if (previous && newNick) {
        // A rename: the same occupant under a new nick, whatever the room reveals.
        room.renaming.set(newNick, previous);
        if (previous.identity.startsWith("nick:")) room.lineages.rename(newNick, previous.identity);
      }
      if (room.occupants.delete(resource)) this.emit("occupantLeft", room.jid, resource);
      return true;
    }
    const facts = {
      nick: resource,
      occupantId: occupantIdOf(stanza),
      realJid: item?.attrs.jid ? bareJid(String(item.attrs.jid)) : undefined,
    };
    const renamedFrom = room.renaming.get(resource);
    room.renaming.delete(resource);
    const occupant: Occupant = {
      ...facts,
      // A presence update (role, status) keeps the identity the occupant arrived with.
      identity: previous?.identity ?? identityOf(facts, () => room.lineages.arrive(resource)),
      formerNicks: previous?.formerNicks ?? (renamedFrom ? [...renamedFrom.formerNicks, renamedFrom.nick] : []),
      role: item?.attrs.role ? String(item.attrs.role) : undefined,
      affiliation: item?.attrs.affiliation ? String(item.attrs.affiliation) : undefined,
    };
    room.occupants.set(resource, occupant);
    if (!previous) this.emit("occupantJoined", room.jid, occupant);
    return true;
  }

  /**
   * Who sent a groupchat or private message through the room: the occupant id the message
   * carries (the room stamps it and strips forgeries) is trusted over our occupant table,
   * which may lag behind presence.
   */
  senderOf(roomJid: string, nick: string, stanza: Element): Occupant {
    const room = this.rooms.get(bareJid(roomJid));
    const known = room?.occupants.get(nick);
    const stamped = occupantIdOf(stanza);
    if (known && (!stamped || stamped === known.occupantId)) return known;
    // Not the occupant the table knows (or none): any real JID there is an earlier holder's
    // of the nick and says nothing about this sender, so only the stamp can speak for it.
    const facts = { nick, occupantId: stamped, realJid: undefined };
    return {
      ...facts,
      identity: identityOf(facts, () => known?.identity ?? `nick:${nick.toLowerCase()}`),
      formerNicks: known?.formerNicks ?? [],
      role: known?.role,
      affiliation: known?.affiliation,
    };
  }

  private async join(jid: string): Promise<void> {
    const room = this.rooms.get(jid);
    if (!room) return;
    room.nick = room.wantedNick;
    this.emit("joining", room.jid);
    // What the room said since we last heard it (see room-history.ts), or nothing; from its
    // archive where it has one (XEP-0313: not capped by its history length), else with the join.
    const request = this.closing ? ({ kind: "none" } as const) : this.historyPolicy(room.jid);
    const archived = request.kind === "since" && (await this.hasArchive(room.jid));
    for (let attempt = 1; ; attempt++) {
      try {
        await this.sendJoin(room, request, archived);
        return;
      } catch (err) {
        if (!(err instanceof NickConflict) || attempt >= MAX_NICK_ATTEMPTS) throw err;
        const next = `${room.wantedNick}-${attempt + 1}`;
        this.log.warn({ room: jid, nick: room.nick, next }, "nick already taken in the room; trying another");
        room.nick = next;
      }
    }
  }

  /** A join that did not complete: what its history gave is taken again at the next join. */
  private dropHistory(room: RoomState): void {
    clearTimeout(room.history?.timer);
    room.history = undefined;
  }

  /** Whether the room advertises an archive (disco#info lists urn:xmpp:mam:2); false when it does not say. */
  private async hasArchive(roomJid: string): Promise<boolean> {
    const features = await this.connection.discoFeatures(roomJid);
    return features?.includes(NS_MAM) ?? false;
  }

  private sendJoin(room: RoomState, request: HistoryRequest, archived: boolean): Promise<void> {
    room.pendingJoin?.reject(new Error("superseded by a new join"));
    room.leaving = undefined;
    this.dropHistory(room);
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
      // The archive is read after the join; then the join asks for no history of its own.
      const presence = xml("presence", { to: `${room.jid}/${room.nick}` }, joinHistory(archived ? { kind: "none" } : request));
      void this.connection.send(presence).then((result) => {
        if (result !== "sent") room.pendingJoin?.reject(new Error(`join presence was ${result}`));
      });
    });
  }

  private onSelfPresence(room: RoomState, nick: string, unavailable: boolean, statuses: Set<string>, stanza: Element): void {
    if (unavailable) {
      room.joined = false;
      room.occupants.clear();
      this.dropHistory(room);
      if (room.leaving) {
        this.log.info({ room: room.jid }, "left the room");
        room.leaving.done();
        return;
      }
      // Kicked, banned, or the room went away: note it and come back after a pause.
      const why = statuses.has("307") ? "kicked" : statuses.has("301") ? "banned" : "removed";
      if (statuses.has("303")) return; // our own nick change
      this.log.warn({ room: room.jid, why }, "left the room involuntarily");
      room.bannedAt = why === "banned" ? Date.now() : undefined;
      // Unless the keep-alive got there first (rooms.check), or we are shutting down.
      const rejoin = (): void => void (this.closing || room.joined || room.pendingJoin ? undefined : this.join(room.jid).catch(() => undefined));
      if (room.bannedAt !== undefined) return; // the keep-alive knocks again after a while (check)
      room.rejoinNotBefore = Date.now() + REJOIN_PAUSE_MS;
      setTimeout(rejoin, REJOIN_PAUSE_MS).unref();
      return;
    }
    room.nick = nick;
    const first = !room.joined;
    room.joined = true;
    room.bannedAt = undefined;
    room.pendingJoin?.resolve();
    room.pendingJoin = undefined;
    if (first && room.history) {
      room.history.created = statuses.has("201");
      room.history.joinedAt = Date.now();
      // The history follows our presence, then the subject; a room that sends neither is done when quiet.
      this.awaitSubject(room, room.history);
      if (room.history.archive) void this.readArchive(room, room.history);
    }
    if (first) {
      // The room sends every other occupant's presence before ours: whoever was here before
      // a reconnect and did not come back has left.
      room.lineages.resume();
      this.log.info({ room: room.jid, nick, created: statuses.has("201") }, "joined the room");
      this.emit("joined", room.jid, nick);
      const role = stanza.getChild("x", NS_MUC_USER)?.getChild("item")?.attrs.role;
      room.identities = {
        occupantIds: occupantIdOf(stanza) !== undefined,
        // 100: the room is non-anonymous; a moderator sees real JIDs in a semi-anonymous room.
        realJids: statuses.has("100") || role === "moderator" || room.madeNonAnonymous || [...room.occupants.values()].some((o) => o.realJid),
      };
      this.emit("identities", room.jid, room.identities);
      if (statuses.has("201")) void this.configureCreatedRoom(room);
    }
  }

  /**
   * A room we created is configured as room-config.ts says: real JIDs visible (identities
   * rest on accounts, not on nicks), persistent, with a history that covers a restart, and
   * archived where the server offers it. A server that refuses leaves the room as it is;
   * that is logged, not fatal.
   */
  private async configureCreatedRoom(room: RoomState): Promise<void> {
    const form = await this.connection.iqGet(room.jid, configFormQuery());
    const offered = form.ok ? formFields(form.result) : new Set<string>();
    // Without the form, submit what every server knows: the rest may be refused as unknown.
    const wanted = wantedRoomConfig().filter((w) => (offered.size > 0 ? offered.has(w.field) : w.field === "muc#roomconfig_whois"));
    const answer = await this.connection.iqSet(room.jid, configSubmission(wanted));
    if (answer.ok) {
      const settings = [...new Set(wanted.map((w) => w.what).filter(Boolean))];
      const missing = ["persistent", "archived"].filter((what) => !settings.includes(what));
      room.madeNonAnonymous = wanted.some((w) => w.field === "muc#roomconfig_whois");
      this.log.info({ room: room.jid, settings, notOffered: missing }, `created the room and configured it: ${settings.join(", ")}`);
      if (missing.length > 0) this.log.warn({ room: room.jid, notOffered: missing }, "the server does not offer every setting that keeps what the room says across a restart; see docs/operating.md, \"Across an absence\"");
      if (room.madeNonAnonymous) {
        room.identities = { occupantIds: room.identities?.occupantIds ?? false, realJids: true };
        this.emit("identities", room.jid, room.identities);
      }
    } else {
      this.log.warn({ room: room.jid, err: answer.error }, "could not configure the new room (real JIDs, persistence, history); identities rest on occupant ids or nicks");
    }
  }

  private onJoinError(room: RoomState, nick: string, stanza: Element): void {
    const error = stanza.getChild("error");
    const condition = error?.children.find((c): c is Element => typeof c !== "string" && c.attrs?.xmlns === NS_STANZAS)?.name ?? "unknown";
    if (!room.pendingJoin) {
      this.log.warn({ room: room.jid, nick, condition }, "presence error from the room");
      return;
    }
    const pending = room.pendingJoin;
    room.pendingJoin = undefined;
    // XEP-0045 7.2.7: a banned user's join is refused as forbidden.
    room.bannedAt = condition === "forbidden" ? Date.now() : undefined;
    pending.reject(condition === "conflict" ? new NickConflict(nick) : new Error(`the room refused us: ${condition}`));
  }
}

function occupantIdOf(stanza: Element): string | undefined {
  const id = stanza.getChild("occupant-id", NS_OCCUPANT_ID)?.attrs.id;
  return id ? String(id) : undefined;
}

class NickConflict extends Error {
  constructor(nick: string) {
    super(`nick ${nick} is taken`);
  }
}
