/**
 * What one step of the core sends, as stanzas. A pure function of the effects and the
 * instant the core saw (`at`, also the messages' `timestamp`), so the live host, the
 * restore after a crash and the replay check all produce the same bytes for the same input.
 */
import { createHash } from "node:crypto";
import { encodeMessage } from "../protocol/codec.js";
import { protocolStanzas } from "../protocol/outbound.js";
import { sessionBaseIri } from "../protocol/vocab.js";
import type { Effect, SessionId } from "../session/types.js";
import type { Element } from "../xmpp/stanza.js";

export interface RenderContext {
  /** The primary room's bare JID. */
  room: string;
  /** The log room's bare JID, when there is one. */
  logRoom: string | undefined;
  maxStanzaBytes: number;
}

/** One stanza a step sends, with a short label for logs and the sent-record. */
export interface Outgoing {
  sessionId: SessionId;
  stanza: Element;
  /** e.g. `SolutionRequest`, `SolutionRequest part 2/3`, `say primary`, `tell`. */
  what: string;
}

/** Something the rendering itself wants logged (a message that had to be shortened or could not be sent). */
export interface RenderNote {
  level: "warn" | "error";
  msg: string;
  data: Record<string, unknown>;
}

/** The stanzas of one step for an input of `sessionId`, in the order the core asked for them. */
export function renderEffects(sessionId: SessionId, effects: readonly Effect[], at: number, ctx: RenderContext): { outgoing: Outgoing[]; notes: RenderNote[] } {
  const outgoing: Outgoing[] = [];
  const notes: RenderNote[] = [];
  const groupchat = (room: string | undefined, text: string, what: string) => {
    if (room) outgoing.push({ sessionId, stanza: encodeMessage({ to: room, type: "groupchat", body: text }), what });
  };
  for (const effect of effects) {
    switch (effect.kind) {
      case "broadcast": {
        const { type } = effect.message;
        const built = protocolStanzas(effect.message, effect.body, {
          room: ctx.room,
          now: at,
          maxStanzaBytes: ctx.maxStanzaBytes,
          skolemBase: sessionBaseIri(sessionId),
        });
        if (!built.ok) {
          notes.push({ level: "error", msg: "protocol message not sent", data: { sessionId, type, err: built.error } });
          groupchat(ctx.room, `${sessionId}: could not send the ${type}: ${built.error}.`, "say primary");
          break;
        }
        if (built.note) notes.push({ level: "warn", msg: "protocol message resized", data: { sessionId, type, note: built.note } });
        const n = built.stanzas.length;
        built.stanzas.forEach((stanza, i) => outgoing.push({ sessionId, stanza, what: n === 1 ? type : `${type} ${i + 1}/${n}` }));
        break;
      }
      case "say":
        groupchat(effect.room === "primary" ? ctx.room : ctx.logRoom, effect.text, `say ${effect.room}`);
        break;
      case "tell":
        if (effect.privately) outgoing.push({ sessionId, stanza: privateMessage(ctx.room, effect.nick, effect.text), what: "tell privately" });
        else groupchat(ctx.room, `${effect.nick}: ${effect.text}`, "tell");
        break;
      default:
        break;
    }
  }
  return { outgoing, notes };
}

/**
 * A private message to a room occupant (XEP-0045 §7.5): what one agent alone must read.
 * Existing agents run a room line that starts with their nick as a command, and answer
 * every line that mentions them.
 */
export function privateMessage(room: string, nick: string, text: string): Element {
  return encodeMessage({ to: `${room}/${nick}`, type: "chat", body: text });
}

/** A stanza's fingerprint in the sent-record: what was sent, without keeping it twice. */
export function stanzaDigest(stanza: Element): string {
  return createHash("sha256").update(stanza.toString()).digest("base64url");
}
