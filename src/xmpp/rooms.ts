/**
 * The MUC rooms we stay in, and our presence in each: joins and rejoins (after a reconnect,
 * a kick, a lost room, a keep-alive that finds us gone), nick conflicts, bans and leaving on
 * purpose. The rule it keeps: every room we mean to be in is joined again until we leave for
 * good, and nothing joins after that. Sending a join and reading the room's answer is
 * room-joining.ts's, the keep-alive's look at a room room-self-check.ts's, leaving on
 * purpose room-leaving.ts's. What each join gives back is room-history-taking.ts's, who the
 * occupants are room-occupants.ts's, and a room our join created room-creation.ts's.
 */
import { EventEmitter } from "node:events";
import type { Logger } from "pino";
import type { XmppConnection } from "./connection.js";
import { NickLineages } from "./occupant-identity.js";
import { startTag } from "./raw-stanza.js";
import { configureCreatedRoom } from "./room-creation.js";
import { RoomFactsReader, type RoomFacts } from "./room-facts.js";
import { joinHistory, type HistoryRequest } from "./room-history.js";
import { HistoryTaking, type HistoryCollection, type HistoryPolicy, type RoomHistory } from "./room-history-taking.js";
import { awaitJoin, joinRefused, joinUnderFreeNick, type PendingJoin } from "./room-joining.js";
import { LEAVE_CONFIRM_MS, leaveRoom } from "./room-leaving.js";
import { applyOccupantPresence, forgetOccupants, identitiesAtJoin, senderFrom, type Occupant, type RoomIdentities } from "./room-occupants.js";
import { checkRoomPresence, type RoomCheckTiming } from "./room-self-check.js";
import { NS_MUC_USER, bareJid, splitJid, type Element } from "./stanza.js";

export type { Occupant, RoomIdentities } from "./room-occupants.js";
export type { HistoryPolicy, RoomHistory } from "./room-history-taking.js";
export type { RoomFacts } from "./room-facts.js";

export interface RoomsEventMap {
  joined: [room: string, nick: string];
  occupantJoined: [room: string, occupant: Occupant];
  occupantLeft: [room: string, nick: string];
  /** After each join: how occupants can be told apart in this room. */
  identities: [room: string, identities: RoomIdentities];
  /** What a room and its service said of themselves at a join, before the join is sent. */
  facts: [room: string, facts: RoomFacts];
  /** A join of the room is about to be sent (at start, after a reconnect, a kick, a lost room). */
  joining: [room: string];
  /** After each join: what the room gave back of what was said while we were away (RoomHistory). */
  history: [room: string, history: RoomHistory];
}

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
  pendingJoin?: PendingJoin;
  /** When the room banned us (or last refused us as banned): the keep-alive knocks again only after a while (a reconnect tries at once). */
  bannedAt?: number;
  /** After being put out (kicked, the room went away): the keep-alive leaves the room to the pause before rejoining. */
  rejoinNotBefore?: number;
  /** Set while we leave on purpose (shutdown): the room's answer is then expected, not news. */
  leaving?: { done: () => void };
  /** From a join until the room's subject: the history it gives back. */
  history?: HistoryCollection;
  /** What the room and its service said of themselves at the latest join. */
  facts?: RoomFacts;
  /** The room's subject as last seen (at a join, or changed since); undefined before the first. */
  subject?: string;
}

/** What the rooms do beyond joining: with none, a room our join creates is configured and left without a subject. */
export interface RoomsOptions {
  /** Without one, no history is asked for (maxstanzas=0). */
  historyPolicy?: HistoryPolicy;
  /** The subject a room our join created gets, unless it came with one (room-creation.ts); given our nick there. */
  subjectOfCreatedRoom?: (nick: string) => string;
}

/** How long we wait before joining a room that put us out (kicked us, or went away). */
const REJOIN_PAUSE_MS = 5000;

/**
 * The MUC rooms we are in (XEP-0045): joins with no history, waits for the self-presence
 * (status 110), takes another nick on conflict, rejoins after every reconnect (the server
 * does not remember us, and may have lost non-persistent rooms), and tracks occupants.
 */
export class Rooms extends EventEmitter<RoomsEventMap> {
  private readonly rooms = new Map<string, RoomState>();
  private closing = false;
  /** Each join's history (room-history-taking.ts). */
  private readonly histories: HistoryTaking;
  /** What each room and its service say of themselves, read at each join (room-facts.ts). */
  private readonly factsReader: RoomFactsReader;

  private historyPolicy: HistoryPolicy;

  constructor(
    private readonly connection: XmppConnection,
    private readonly log: Logger,
    private readonly options: RoomsOptions = {},
  ) {
    super();
    this.historyPolicy = options.historyPolicy ?? (() => ({ kind: "none" }));
    this.histories = new HistoryTaking(connection, log, (jid) => this.rooms.get(jid), (room, history) => this.emit("history", room, { ...history, facts: this.rooms.get(room)?.facts }));
    this.factsReader = new RoomFactsReader(connection);
    // The room sends every message we say back to us; a model part comes back as large as it
    // went out (200 KB), and parsing it only to ignore it cost main-thread time. One given
    // back as history is read for its origin-id only.
    connection.skipUnread((raw) => this.isOwnEchoText(raw));
  }

  /** What history to ask each room for at a join, from now on (the catch-up registers itself here when it is made). */
  useHistoryPolicy(policy: HistoryPolicy): void {
    this.historyPolicy = policy;
  }

  /** A groupchat message said by our own occupant in one of our rooms: the room's echo of what we said. */
  isOwnEcho(type: string, from: string): boolean {
    if (type !== "groupchat") return false;
    const { bare, resource } = splitJid(from);
    return resource !== undefined && resource !== "" && resource === this.nickIn(bare);
  }

  /**
   * isOwnEcho, read from a stanza's text before it is parsed (a text that is no message start
   * tag is not). A subject we set is parsed all the same: the room sends it from our nick after
   * every join's history, and it ends that history (room-history-taking.ts).
   */
  private isOwnEchoText(raw: string): boolean {
    if (!raw.startsWith("<message")) return false;
    const tag = startTag(raw);
    if (tag === null || tag.name !== "message" || !this.isOwnEcho(tag.attrs.type ?? "", tag.attrs.from ?? "")) return false;
    if (raw.includes("<subject")) return false;
    this.histories.noteOwnEchoText(bareJid(tag.attrs.from ?? ""), raw);
    return true;
  }

  /**
   * Feeds a message stanza from one of our rooms while its history is being given back:
   * returns true when it belonged to that history (kept for the `history` event, or the
   * subject that ends it). Other messages are left to the caller.
   */
  takeHistory(stanza: Element): boolean {
    this.noteSubject(stanza);
    return this.histories.take(stanza);
  }

  /** A subject from one of our rooms (XEP-0045 §8.1: a groupchat message with a subject and no body), at a join or changed since. */
  private noteSubject(stanza: Element): void {
    if (stanza.attrs.type !== "groupchat" || stanza.getChild("body") !== undefined) return;
    const subject = stanza.getChild("subject");
    const room = subject && this.rooms.get(bareJid(String(stanza.attrs.from ?? "")));
    if (room) room.subject = subject.getText();
  }

  /** The room's subject as last seen; undefined before it sent one. */
  subject(roomJid: string): string | undefined {
    return this.rooms.get(bareJid(roomJid))?.subject;
  }

  /** Whether a room's history is still being given back (its messages wait for the `history` event). */
  isTakingHistory(roomJid: string): boolean {
    return this.rooms.get(bareJid(roomJid))?.history !== undefined;
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
    this.factsReader.forget();
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
  async check(timing: RoomCheckTiming): Promise<void> {
    if (!this.connection.online) return;
    await Promise.all([...this.rooms.values()].map((room) => this.checkRoom(room, timing)));
  }

  private async checkRoom(room: RoomState, timing: RoomCheckTiming): Promise<void> {
    if (this.closing) return;
    const found = await checkRoomPresence(this.connection, this.log, room, timing);
    if (found === "fine") return;
    if (found === "lost") this.forgetPresence(room, "left while joining");
    await this.join(room.jid).catch((err: Error) => this.log.error({ room: room.jid, err: err.message }, "could not join the room"));
  }

  /** What we knew of a room's occupants goes; a pending join fails with `why`. */
  private forgetPresence(room: RoomState, why: string): void {
    room.joined = false;
    this.histories.drop(room);
    forgetOccupants(room);
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
    const leaving = [...this.rooms.values()].filter((room) => room.joined).map((room) => leaveRoom(this.connection, room, confirmWithinMs));
    await Promise.all(leaving);
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

  /** What the room and its service said of themselves at the latest join; undefined before the first. */
  facts(roomJid: string): RoomFacts | undefined {
    return this.rooms.get(bareJid(roomJid))?.facts;
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
      joinRefused(room, resource, stanza, this.log);
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
    const change = applyOccupantPresence(room, resource, stanza, statuses, item, unavailable);
    if (change?.kind === "left") this.emit("occupantLeft", room.jid, change.nick);
    if (change?.kind === "joined") this.emit("occupantJoined", room.jid, change.occupant);
    return true;
  }

  /**
   * Who sent a groupchat or private message through the room: the occupant id the message
   * carries (the room stamps it and strips forgeries) is trusted over our occupant table,
   * which may lag behind presence.
   */
  senderOf(roomJid: string, nick: string, stanza: Element): Occupant {
    return senderFrom(this.rooms.get(bareJid(roomJid)), nick, stanza);
  }

  private async join(jid: string): Promise<void> {
    const room = this.rooms.get(jid);
    if (!room) return;
    room.nick = room.wantedNick;
    this.emit("joining", room.jid);
    // What the room said since we last heard it (see room-history.ts), or nothing; from its
    // archive where it has one (XEP-0313: not capped by its history length), else with the join.
    const request = this.closing ? ({ kind: "none" } as const) : this.historyPolicy(room.jid);
    const facts = await this.factsReader.read(room.jid);
    room.facts = facts;
    this.emit("facts", room.jid, facts);
    const archived = request.kind === "since" && facts.archived;
    await joinUnderFreeNick(room, this.log, () => this.sendJoin(room, request, archived));
  }

  private sendJoin(room: RoomState, request: HistoryRequest, archived: boolean): Promise<void> {
    room.pendingJoin?.reject(new Error("superseded by a new join"));
    room.leaving = undefined;
    // What this join's room says of its subject, not what an earlier room of that name said.
    room.subject = undefined;
    this.histories.begin(room, request, archived);
    // The archive is read after the join; then the join asks for no history of its own.
    return awaitJoin(this.connection, room, joinHistory(archived ? { kind: "none" } : request));
  }

  private onSelfPresence(room: RoomState, nick: string, unavailable: boolean, statuses: Set<string>, stanza: Element): void {
    if (unavailable) {
      room.joined = false;
      room.occupants.clear();
      this.histories.drop(room);
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
    if (first) this.histories.joined(room, statuses.has("201"));
    if (first) {
      // The room sends every other occupant's presence before ours: whoever was here before
      // a reconnect and did not come back has left.
      room.lineages.resume();
      this.log.info({ room: room.jid, nick, created: statuses.has("201") }, "joined the room");
      this.emit("joined", room.jid, nick);
      room.identities = identitiesAtJoin(room, stanza, statuses, room.madeNonAnonymous);
      this.emit("identities", room.jid, room.identities);
      if (statuses.has("201")) {
        const subject = this.options.subjectOfCreatedRoom?.(nick);
        void configureCreatedRoom(this.connection, this.log, room, (identities) => this.emit("identities", room.jid, identities), subject);
      }
    }
  }
}
