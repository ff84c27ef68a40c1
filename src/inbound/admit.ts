/**
 * The first stage: whether a stanza is input at all, and whether it may come in now.
 * Not input: our own echoes, errors, notices, a room's message on the direct line, the copy
 * of a 1:1 message the server gave to both lines, a message with neither body nor payload,
 * a room message already taken in, and a 1:1 message our server kept for us while we were
 * away that is more than a day old or came twice (./sent-while-away.ts). Refused, and
 * counted: a sender over the flood limit, a stanza over the size limit, a protocol message
 * outside the rooms where agents work.
 */
import type { Logger } from "pino";
import { decodeMessage } from "../protocol/codec.js";
import type { RefusalReason } from "../ops/refusals.js";
import { wording } from "./wording.js";
import { FloodGuard } from "./flood-guard.js";
import { heardOf } from "../host/heard.js";
import { senderOf } from "./sender.js";
import { OnceAcrossLines } from "../xmpp/direct-line.js";
import { classifyMessage } from "../xmpp/inbound.js";
import type { Rooms } from "../xmpp/rooms.js";
import { splitJid, type Element } from "../xmpp/stanza.js";
import { receivedBytesOf } from "../xmpp/received-size.js";
import { inboundContext, sentWhileAway, type Arrival, type InboundContext, type ReplyOutlet, type Taken } from "./context.js";
import type { HeardOnce } from "./heard-once.js";
import { KeptOnce, type UntilBack } from "./sent-while-away.js";
import type { OurRooms } from "../config/our-rooms.js";
import type { Stage } from "./chain.js";

/** What admitting needs: the rooms, the limits, the log of what was heard, and where refusals are counted and answered. */
export interface AdmitOptions {
  rooms: Rooms;
  /** Our own bare JID once connected: a 1:1 message from it is our own echo. */
  ownBareJid: () => string | undefined;
  /** Whether 1:1 chat has a line of its own (the server may then copy a message to both). */
  hasDirectLine: boolean;
  heardOnce: HeardOnce;
  limits: { messagesPerMinute: number; maxInboundBytes: number };
  /** The primary and phase rooms: where agents contribute and propose. */
  ourRooms: Pick<OurRooms, "isProtocolRoom">;
  refused: (reason: RefusalReason) => void;
  outlet: ReplyOutlet;
  /** Until when 1:1 messages kept for us while we were away wait (./sent-while-away.ts); by default they never wait. */
  untilBack?: Pick<UntilBack, "wait">;
  log: Logger;
  now: () => number;
}

/** The admitting stage (see the top of this file); keeps the flood guards and the memory of 1:1 copies. */
export class Admission {
  private readonly flood: FloodGuard;
  /** The same limit for what rooms give back after an absence, counted at the rooms' stamps. */
  private readonly caughtUpFlood: FloodGuard;
  private readonly onceAcrossLines = new OnceAcrossLines();
  /** 1:1 messages our server kept for us while we were away: each taken in once, none too old. */
  private readonly keptOnce = new KeptOnce();

  private readonly waitUntilBack: Pick<UntilBack, "wait">;

  constructor(private readonly options: AdmitOptions) {
    this.waitUntilBack = options.untilBack ?? { wait: () => Promise.resolve(true) };
    this.flood = new FloodGuard(options.limits.messagesPerMinute);
    this.caughtUpFlood = new FloodGuard(options.limits.messagesPerMinute);
  }

  /**
   * The context of a message that is input, taken (a room message is then in flight until
   * `HeardOnce.doneWith`); or why it is not: "ignored" (not input), "duplicate" (taken before).
   */
  enter({ stanza, line, stamp }: Arrival): InboundContext | Taken {
    const { log, rooms, now } = this.options;
    const fromHistory = stamp !== undefined;
    const message = classifyMessage(stanza, rooms, this.options.ownBareJid(), fromHistory);
    if ("ignored" in message) {
      log.trace({ from: stanza.attrs.from, reason: message.ignored }, "message ignored");
      return "ignored";
    }
    // We are in no room on the direct line: what a room sends there (an invitation, a message
    // to our bare JID) is not ours to answer from a resource that is not the occupant.
    if (line === "direct-line" && (message.kind !== "direct" || message.viaRoom)) {
      log.trace({ from: stanza.attrs.from, reason: "room-message-on-direct-line" }, "message ignored");
      return "ignored";
    }
    if (this.options.hasDirectLine && message.kind === "direct" && !message.viaRoom && isToBareJid(stanza)) {
      const copy = { from: message.from, id: stanza.attrs.id as string | undefined, body: stanza.getChildText("body") ?? "" };
      if (!this.onceAcrossLines.first(copy, line, now())) {
        log.info({ from: message.from, id: copy.id, line }, "1:1 message dropped: the same one came on the other line (the server gave it to both)");
        return "duplicate";
      }
    }
    const decoded = decodeMessage(stanza);
    if (!decoded.body && !decoded.payload) return "ignored"; // chat states, receipts…
    if (message.kind === "direct" && message.storedAt !== undefined) {
      const sentAt = new Date(message.storedAt).toISOString();
      const verdict = this.keptOnce.verdict(message, now());
      if (verdict === "too-old") {
        log.info({ from: message.from, id: stanza.attrs.id, sentAt, line }, "1:1 message sent while we were away is more than a day old; not answered");
        return "ignored";
      }
      if (verdict === "copy") {
        log.info({ from: message.from, id: stanza.attrs.id, sentAt, line }, "1:1 message sent while we were away came again; dropped");
        return "duplicate";
      }
      log.info({ from: message.from, id: stanza.attrs.id, sentAt, line }, "1:1 message sent while we were away; the server kept it for us");
    }
    // Said in a room: taken in once, however often the room gives it (host/heard.ts).
    const heard = message.kind === "room" ? heardOf(message.room, message.nick, stanza, typeof stamp === "number" ? stamp : now(), typeof stamp === "number") : undefined;
    if (heard && !this.options.heardOnce.firstTake(heard)) {
      log.debug({ room: heard.room, from: stanza.attrs.from, caughtUp: fromHistory }, "message already taken in; skipped");
      return "duplicate";
    }
    return inboundContext({ stanza, line, message, decoded, heard, sender: senderOf(message, rooms) }, this.options.outlet);
  }

  /**
   * Whether a 1:1 message our server kept for us while we were away may go on: it waits until
   * we are back (the rooms caught up on); false when it cannot wait (too many wait, or we are
   * stopping), counted in the one line said when we are back or stop. Others go on at once.
   */
  async untilBack(ctx: InboundContext): Promise<boolean> {
    if (sentWhileAway(ctx) === undefined || (await this.waitUntilBack.wait())) return true;
    this.options.log.debug({ from: ctx.sender.label, id: ctx.stanza.attrs.id }, "1:1 message sent while we were away not answered: too many wait, or we are stopping");
    return false;
  }

  /** Rate and size limits, applied before anything is parsed further; then where protocol may be spoken. False: refused. */
  async limit(ctx: InboundContext): Promise<boolean> {
    const { log, limits, refused } = this.options;
    // What a room gives back at our join was said over time: its rate is judged at the room's stamps.
    const heard = ctx.heard;
    const rate = heard?.caughtUp ? this.caughtUpFlood.admit(ctx.sender.rateKey, heard.at) : this.flood.admit(ctx.sender.rateKey, this.options.now());
    if (rate !== "ok") {
      refused("throttled");
      log.warn({ sender: ctx.sender.label, first: rate === "throttled-first" }, "sender throttled");
      if (rate === "throttled-first") await ctx.replyPrivately(wording.throttled());
      return false;
    }
    // Within the limit as received, it is within it: serialising a large stanza again only to
    // count it stalled the main thread. Over it as received (or not read off a stream), it is
    // measured as its sender measures it, written out: the server adds elements of its own and
    // escapes more, so a part its sender sized to the limit comes in a little larger.
    const received = receivedBytesOf(ctx.stanza);
    const bytes = received !== undefined && received <= limits.maxInboundBytes ? received : Buffer.byteLength(ctx.stanza.toString(), "utf8");
    if (bytes > limits.maxInboundBytes) {
      refused("too-large");
      log.warn({ sender: ctx.sender.label, bytes, limit: limits.maxInboundBytes }, "message over the inbound size limit");
      await ctx.replyPrivately(wording.tooLarge(bytes, limits.maxInboundBytes));
      return false;
    }
    const payload = ctx.decoded.payload;
    if (payload && (ctx.message.kind !== "room" || !this.options.ourRooms.isProtocolRoom(ctx.message.room))) {
      refused("outside-protocol-room");
      log.warn({ sender: ctx.sender.label, mode: payload.mode }, "protocol message outside the primary and phase rooms ignored");
      return false;
    }
    return true;
  }
}

/** Addressed to our bare JID (no resource): the only kind of message a server may copy to both lines. */
function isToBareJid(stanza: Element): boolean {
  return splitJid(String(stanza.attrs.to ?? "")).resource === undefined;
}

/** One message on its way in, and what became of it (the pipeline's answer to whoever handed it in). */
export interface Taking {
  readonly arrival: Arrival;
  taken: Taken;
}

/**
 * The admitting stage: a message that is input goes on with its context once it may (a 1:1
 * message our server kept for us waits until we are back) and is within the limits; a room
 * message is noted as handled once the rest of the chain is done with it, however that ends.
 */
export function admitted(admission: Admission, heardOnce: HeardOnce): Stage<Taking, InboundContext> {
  return async (taking, next) => {
    const entry = admission.enter(taking.arrival);
    taking.taken = typeof entry === "string" ? entry : "taken";
    if (typeof entry === "string") return;
    try {
      if ((await admission.untilBack(entry)) && (await admission.limit(entry))) await next(entry);
    } finally {
      if (entry.heard) heardOnce.doneWith(entry.heard);
    }
  };
}
