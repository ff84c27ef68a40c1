/**
 * What one step of the core sends, as stanzas. A pure function of the effects and the
 * instant the core saw (`at`, also the messages' `timestamp`), so the live host, the
 * restore after a crash and the replay check all produce the same bytes for the same input.
 */
import { createHash } from "node:crypto";
import { asksAgents, marked } from "../session/room-lines.js";
import type { Config, Phase } from "../config/schema.js";
import { encodeMessage } from "../protocol/codec.js";
import { maxStatementWireBytes, partBudget } from "../protocol/model-parts.js";
import type { SplitKey } from "../protocol/split-memo.js";
import { protocolSends } from "../protocol/outbound.js";
import { sessionBaseIri } from "../base/vocab.js";
import type { SessionId } from "../session/types.js";
import type { Broadcast, Effect } from "../session/step-io.js";
import { bareJid, type Element } from "../xmpp/stanza.js";

/** What rendering needs besides the effects: the rooms and the stanza limit. */
export interface RenderContext {
  /** The primary room's bare JID. */
  room: string;
  /** The log room's bare JID, when there is one. */
  logRoom: string | undefined;
  maxStanzaBytes: number;
  /** The MFR phase rooms' bare JIDs (agent:mfrRooms); a phase without one is sent to the primary room only. */
  phaseRooms?: Partial<Record<Phase, string>>;
}

/**
 * The phase whose room also carries each protocol message: agents that sit in a phase's room
 * hear what that phase asks and decides there, without the rest of the primary room.
 */
const PHASE_OF: Record<Broadcast["type"], Phase> = {
  ModelContributionRequest: "construct",
  ModelValidationResult: "validate",
  SolutionRequest: "reason",
  SessionComplete: "reason",
};

/** The render context a configuration gives: the one place the live coordinator and `verify` both take it from. */
export function renderContextOf(config: Config): RenderContext {
  const phaseRooms: Partial<Record<Phase, string>> = {};
  for (const [phase, jid] of Object.entries(config.phaseRooms) as Array<[Phase, string | null]>) if (jid) phaseRooms[phase] = bareJid(jid);
  return {
    room: bareJid(config.room),
    logRoom: config.logRoom ? bareJid(config.logRoom) : undefined,
    maxStanzaBytes: config.limits.maxStanzaBytes,
    phaseRooms,
  };
}

/** Where a protocol message of this type goes: the primary room first, then its phase's room when there is one. */
export function roomsFor(type: Broadcast["type"], ctx: RenderContext): Array<{ room: string; phase: Phase | undefined }> {
  const phase = PHASE_OF[type];
  const phaseRoom = ctx.phaseRooms?.[phase];
  return [{ room: ctx.room, phase: undefined }, ...(phaseRoom ? [{ room: phaseRoom, phase }] : [])];
}

/**
 * The largest statement (wire bytes, see `maxStatementWireBytes`) a contribution to
 * `sessionId` may hold so that the model can still be sent in parts to every room the
 * SolutionRequest goes to: a longer room JID leaves less room in each part.
 */
export function maxModelStatementBytes(sessionId: SessionId, ctx: RenderContext): number {
  return Math.min(...roomsFor("SolutionRequest", ctx).map(({ room }) => maxStatementWireBytes(ctx.maxStanzaBytes, sessionId, room)));
}

/**
 * The part sizes a model of `sessionId` is split into when its SolutionRequest is rendered
 * (one per room it goes to): what the model worker splits ahead (protocol/split-memo.ts).
 */
export function solutionRequestSplitKeys(sessionId: SessionId, ctx: RenderContext): SplitKey[] {
  return roomsFor("SolutionRequest", ctx).map(({ room }) => ({ maxPartWireBytes: partBudget({ room, sessionId }, ctx.maxStanzaBytes), skolemBase: sessionBaseIri(sessionId) }));
}

/** One stanza a step sends, with a short label for logs and the sent-record. */
export interface Outgoing {
  sessionId: SessionId;
  /** Built when first read (see `lazyOutgoing`), then kept. */
  readonly stanza: Element;
  /** e.g. `SolutionRequest`, `SolutionRequest 2/3`, `SolutionRequest 2/3 in reason room`, `say primary`, `tell`. */
  what: string;
  /** The nick a `tell` is for: its recipient, which a room line (`nick: text`) has only in its text (see decisive-digest.ts). */
  addressee?: string;
  /** Within the stanza limit already (measured when rendered, or by construction): the connection need not measure it. */
  sized?: boolean;
  /** A part of a model in parts: sent at the pace the server takes it in, so replies to people are not queued behind megabytes. */
  bulk?: boolean;
}

/**
 * An outgoing stanza built the first time it is read: a model's parts are rendered one by
 * one as the host sends them, not all in the step that produced them. The build is a pure
 * function of the step, so building later gives the same bytes as building now.
 */
function lazyOutgoing(sessionId: SessionId, what: string, build: () => Element, flags: { sized: boolean; bulk: boolean }): Outgoing {
  let stanza: Element | undefined;
  return {
    sessionId,
    what,
    ...flags,
    get stanza(): Element {
      stanza ??= build();
      return stanza;
    },
  };
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
  const groupchat = (room: string | undefined, text: string, what: string, addressee?: string) => {
    if (room) outgoing.push({ sessionId, stanza: encodeMessage({ to: room, type: "groupchat", body: text }), what, ...(addressee !== undefined ? { addressee } : {}) });
  };
  for (const effect of effects) {
    switch (effect.kind) {
      case "broadcast": {
        const { type } = effect.message;
        // Each room gets the message built for its own address, so every copy is within the
        // stanza limit and a model in parts is complete in each room.
        for (const { room, phase } of roomsFor(type, ctx)) {
          // A request agents must act on is read unmarked; every other body is status (session/room-lines.ts).
          const body = effect.body === undefined || asksAgents(type) ? effect.body : marked(effect.body);
          const built = protocolSends(effect.message, body, {
            room,
            now: at,
            maxStanzaBytes: ctx.maxStanzaBytes,
            skolemBase: sessionBaseIri(sessionId),
          });
          if (!built.ok) {
            notes.push({ level: "error", msg: phase ? "protocol message not sent to its phase room" : "protocol message not sent", data: { sessionId, type, room, err: built.error } });
            // People read the primary room only; a phase room is for agents.
            if (!phase) groupchat(ctx.room, `${sessionId}: could not send the ${type}: ${built.error}.`, "say primary");
            continue;
          }
          if (built.note) notes.push({ level: "warn", msg: "protocol message resized", data: { sessionId, type, room, note: built.note } });
          const n = built.sends.length;
          const where = phase ? ` in ${phase} room` : "";
          built.sends.forEach(({ build, bulk }, i) => outgoing.push(lazyOutgoing(sessionId, `${n === 1 ? type : `${type} ${i + 1}/${n}`}${where}`, build, { sized: true, bulk })));
        }
        break;
      }
      case "say":
        groupchat(effect.room === "primary" ? ctx.room : ctx.logRoom, effect.forChairs ? effect.text : marked(effect.text), `say ${effect.room}`);
        break;
      case "tell":
        if (effect.privately) outgoing.push({ sessionId, stanza: privateMessage(effect.room ?? ctx.room, effect.nick, effect.text), what: "tell privately", addressee: effect.nick });
        else groupchat(ctx.room, marked(`${effect.nick}: ${effect.text}`), "tell", effect.nick);
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
