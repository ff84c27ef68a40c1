import { EventEmitter } from "node:events";
import type { Logger } from "pino";
import type { XmppConnection } from "./connection.js";
import { NS_MUC, NS_MUC_USER, NS_STANZAS, bareJid, splitJid, xml, type Element } from "./stanza.js";

export interface Occupant {
  nick: string;
  /** The occupant's real bare JID, when the room reveals it. */
  realJid: string | undefined;
  role: string | undefined;
}

export interface RoomsEventMap {
  joined: [room: string, nick: string];
  occupantJoined: [room: string, occupant: Occupant];
  occupantLeft: [room: string, nick: string];
}

const JOIN_TIMEOUT_MS = 10_000;
const MAX_NICK_ATTEMPTS = 9;

interface RoomState {
  jid: string;
  wantedNick: string;
  nick: string;
  joined: boolean;
  occupants: Map<string, Occupant>;
  pendingJoin?: { resolve: () => void; reject: (err: Error) => void };
}

/**
 * The MUC rooms we are in (XEP-0045): joins with no history, waits for the self-presence
 * (status 110), takes another nick on conflict, rejoins after every reconnect (the server
 * does not remember us, and may have lost non-persistent rooms), and tracks occupants.
 */
export class Rooms extends EventEmitter<RoomsEventMap> {
  private readonly rooms = new Map<string, RoomState>();

  constructor(
    private readonly connection: XmppConnection,
    private readonly log: Logger,
  ) {
    super();
  }

  /** Adds a room to the set we stay in and joins it now if we are online. */
  async enter(roomJid: string, nick: string): Promise<void> {
    const jid = bareJid(roomJid);
    this.rooms.set(jid, { jid, wantedNick: nick, nick, joined: false, occupants: new Map() });
    if (this.connection.online) await this.join(jid);
  }

  /** Joins every room again; called on each `online`. Failures are logged, never thrown. */
  async rejoinAll(): Promise<void> {
    await Promise.all(
      [...this.rooms.keys()].map((jid) =>
        this.join(jid).catch((err: Error) => this.log.error({ room: jid, err: err.message }, "could not join the room")),
      ),
    );
  }

  /** Marks every room as left; called when the connection drops. */
  markDisconnected(): void {
    for (const room of this.rooms.values()) {
      room.joined = false;
      room.occupants.clear();
      room.pendingJoin?.reject(new Error("disconnected while joining"));
      room.pendingJoin = undefined;
    }
  }

  async leaveAll(): Promise<void> {
    for (const room of this.rooms.values()) {
      if (!room.joined) continue;
      await this.connection.send(xml("presence", { to: `${room.jid}/${room.nick}`, type: "unavailable" }));
      room.joined = false;
    }
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
      this.onSelfPresence(room, resource, unavailable, statuses);
      return true;
    }
    if (unavailable) {
      if (room.occupants.delete(resource)) this.emit("occupantLeft", room.jid, resource);
      return true;
    }
    const isNew = !room.occupants.has(resource);
    const occupant: Occupant = {
      nick: resource,
      realJid: item?.attrs.jid ? bareJid(String(item.attrs.jid)) : undefined,
      role: item?.attrs.role ? String(item.attrs.role) : undefined,
    };
    room.occupants.set(resource, occupant);
    if (isNew) this.emit("occupantJoined", room.jid, occupant);
    return true;
  }

  private async join(jid: string): Promise<void> {
    const room = this.rooms.get(jid);
    if (!room) return;
    room.nick = room.wantedNick;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.sendJoin(room);
        return;
      } catch (err) {
        if (!(err instanceof NickConflict) || attempt >= MAX_NICK_ATTEMPTS) throw err;
        const next = `${room.wantedNick}-${attempt + 1}`;
        this.log.warn({ room: jid, nick: room.nick, next }, "nick already taken in the room; trying another");
        room.nick = next;
      }
    }
  }

  private sendJoin(room: RoomState): Promise<void> {
    room.pendingJoin?.reject(new Error("superseded by a new join"));
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
      // maxstanzas=0: old messages are history, not input.
      const presence = xml("presence", { to: `${room.jid}/${room.nick}` }, xml("x", { xmlns: NS_MUC }, xml("history", { maxstanzas: "0" })));
      void this.connection.send(presence).then((result) => {
        if (result !== "sent") room.pendingJoin?.reject(new Error(`join presence was ${result}`));
      });
    });
  }

  private onSelfPresence(room: RoomState, nick: string, unavailable: boolean, statuses: Set<string>): void {
    if (unavailable) {
      // Kicked, banned, or the room went away: note it and come back after a pause.
      room.joined = false;
      room.occupants.clear();
      const why = statuses.has("307") ? "kicked" : statuses.has("301") ? "banned" : "removed";
      if (statuses.has("303")) return; // our own nick change
      this.log.warn({ room: room.jid, why }, "left the room involuntarily");
      if (why !== "banned") setTimeout(() => void this.join(room.jid).catch(() => undefined), 5000).unref();
      return;
    }
    room.nick = nick;
    const first = !room.joined;
    room.joined = true;
    room.pendingJoin?.resolve();
    room.pendingJoin = undefined;
    if (first) {
      this.log.info({ room: room.jid, nick, created: statuses.has("201") }, "joined the room");
      this.emit("joined", room.jid, nick);
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
    pending.reject(condition === "conflict" ? new NickConflict(nick) : new Error(`the room refused us: ${condition}`));
  }
}

class NickConflict extends Error {
  constructor(nick: string) {
    super(`nick ${nick} is taken`);
  }
}
