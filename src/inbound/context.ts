/**
 * The one typed context an inbound message is carried in, from the stage that admits it to
 * the stage that routes it: what the stanza says, where it came from, who sent it, and how
 * to answer them. Stages fill it in as they learn more (read: what it asks; identify: with
 * what standing), and answer only through it, never by reaching back to the entry.
 */
import type { OccupantFacts } from "../agent-choice/catalog.js";
import { wording } from "./wording.js";
import type { DecodedMessage } from "../protocol/codec.js";
import type { Heard } from "../host/heard.js";
import type { Sender } from "./sender.js";
import type { Participant, Requester } from "../session/types.js";
import type { Line } from "../xmpp/direct-line.js";
import type { InboundMessage } from "../xmpp/inbound.js";
import type { Element } from "../xmpp/stanza.js";
import type { Reading } from "./reading.js";

/** After carry-protocol.ts: anything but a protocol message, which that stage has carried. */
export type RoutedContext = IdentifiedContext & { readonly reading: Exclude<Reading, { kind: "protocol" }> };

/** Whether the message is one for routing, not a protocol message. */
export function isRouted(ctx: IdentifiedContext): ctx is RoutedContext {
  return ctx.reading.kind !== "protocol";
}

/** What became of one message: taken in, already taken in before (a room gave it back again), or not input. */
export type Taken = "taken" | "duplicate" | "ignored";

/** Where a reply goes: the room a command was said in, or back to a 1:1 sender (on the direct line when it came that way). */
export type ReplyTarget = { kind: "room"; room: string } | { kind: "direct"; to: string; onDirectLine: boolean };

/** One stanza on its way in: the line it came on, and for a room's history given back at our join, the room's stamp. */
export interface Arrival {
  stanza: Element;
  line: Line;
  /** Undefined: live. A number: when the room stamped it. Null: given back without a stamp (counted now). */
  stamp?: number | null;
}

/** Where answers leave (inbound/replies.ts): the stages never hold a connection. */
export interface ReplyOutlet {
  /** A one-line or multi-line message to a room or a 1:1 sender; failures are logged, never thrown. */
  to(target: ReplyTarget, text: string): Promise<void>;
  /** A private message to a room occupant, through the room. */
  privately(via: { room: string; nick: string }, text: string, senderLabel: string): Promise<void>;
  /** A line in the primary room or the log room (nothing when there is no log room). */
  sayIn(room: "primary" | "log", text: string): Promise<void>;
}

/** Who sent a message, with the standing the rooms give them now (identify.ts). */
export interface Standing {
  /** The sender as the session core knows participants. */
  participant: Participant;
  /** The sender with the standing that lets them steer sessions other than their own. */
  requester: Requester;
  /** The sender as an occupant of the primary room, for the evidence about agents. */
  facts: OccupantFacts;
  /** Known as an agent by the evidence (an agent stays one under a new nick). */
  agent: boolean;
}

/** What the admitting stage knows: the message, its sender, and how to answer. */
export interface InboundContext {
  readonly stanza: Element;
  readonly line: Line;
  readonly message: InboundMessage;
  readonly decoded: DecodedMessage;
  /** For a room message: its keys and when it counts (host/heard.ts); the input it becomes records it. */
  readonly heard: Heard | undefined;
  readonly sender: Sender;
  readonly replyTo: ReplyTarget;
  /** Answers where the message came from: the room, or the 1:1 chat (on the line it came on). */
  reply(text: string): Promise<void>;
  /**
   * An answer about the sender's own input (too fast, too large, an agent's command): to a
   * room occupant privately, since the sender may be an agent, which would take a room line
   * starting with its nick as a command; to a 1:1 sender in that chat.
   */
  replyPrivately(text: string): Promise<void>;
  /** Says something in the primary room or the log room, whoever asked. */
  sayIn(room: "primary" | "log", text: string): Promise<void>;
}

/** After read.ts: what the message asks. */
export interface ReadContext extends InboundContext {
  readonly reading: Reading;
}

/** After identify.ts: who asks it, and with what standing. */
export interface IdentifiedContext extends ReadContext {
  readonly standing: Standing;
}

/** The facts of one admitted message, as admit.ts found them. */
export interface ContextFacts {
  stanza: Element;
  line: Line;
  message: InboundMessage;
  decoded: DecodedMessage;
  heard: Heard | undefined;
  sender: Sender;
}

/** When a 1:1 message was sent, if our server kept it for us while we were away (xmpp/inbound.ts); undefined for one that came live. */
export function sentWhileAway(ctx: Pick<InboundContext, "message">): number | undefined {
  return ctx.message.kind === "direct" ? ctx.message.storedAt : undefined;
}

/**
 * Makes the context of an admitted message: a reply goes back the way the message came. The
 * first answer to a message sent while we were away says so, and when it was sent.
 */
export function inboundContext(facts: ContextFacts, outlet: ReplyOutlet): InboundContext {
  const { message, line } = facts;
  const replyTo: ReplyTarget = message.kind === "room" ? { kind: "room", room: message.room } : { kind: "direct", to: message.from, onDirectLine: line === "direct-line" };
  let late = message.kind === "direct" ? message.storedAt : undefined;
  const answer = (text: string): string => {
    if (late === undefined) return text;
    const note = wording.sentWhileAway(late);
    late = undefined;
    return `${note}\n${text}`;
  };
  return {
    ...facts,
    replyTo,
    reply: (text) => outlet.to(replyTo, answer(text)),
    replyPrivately: (text) => {
      const via = message.kind === "room" ? { room: message.room, nick: message.nick } : message.viaRoom;
      return via ? outlet.privately(via, text, facts.sender.label) : outlet.to(replyTo, answer(text));
    },
    sayIn: (room, text) => outlet.sayIn(room, text),
  };
}

/** The context with what read.ts found; the same object, so every stage sees one context. */
export function withReading(ctx: InboundContext, reading: Reading): ReadContext {
  return Object.assign(ctx, { reading });
}

/** The context with the sender's standing (identify.ts). */
export function withStanding(ctx: ReadContext, standing: Standing): IdentifiedContext {
  return Object.assign(ctx, { standing });
}
