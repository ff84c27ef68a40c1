/**
 * The second stage: what an admitted message asks, read once. A payload is a protocol
 * message (a contribution or a part of one, a negotiation message, or something only
 * noted); a line in the primary room while a debate runs may be the Chair's; anything else
 * is a command, a command with wrong arguments, something said as a command that is none,
 * or chatter. The debate comes first: a Chair's line is never taken as a command.
 */
import type { Logger } from "pino";
import { parseCommand } from "../commands/parse.js";
import type { LinguePayload } from "../protocol/codec.js";
import { decodeNegotiation } from "../protocol/negotiation.js";
import { Mode } from "../base/vocab.js";
import type { AgentChooser } from "../agent-choice/agent-chooser.js";
import { participantOf } from "./sender.js";
import type { SessionHost } from "../host/session-host.js";
import { withReading, type InboundContext, type ReadContext } from "./context.js";
import type { Reading } from "./reading.js";
import type { Stage } from "./chain.js";

/** What reading needs: the primary room, our nick, and the debates running. */
export interface ReadOptions {
  /** The primary room's bare JID: debates run there. */
  primaryRoom: string;
  /** Our nick in a room (a line addressed to it is for us); the configured one elsewhere. */
  ownNick: (room: string | undefined) => string;
  sessions: Pick<SessionHost, "debatingSessions">;
  chooser: Pick<AgentChooser, "debateInput">;
  log: Logger;
}

/** What the message asks, on the context for the stages after. */
export function readMessage(ctx: InboundContext, options: ReadOptions): ReadContext {
  return withReading(ctx, ctx.decoded.payload ? readProtocol(ctx, ctx.decoded.payload, options.log) : readChat(ctx, options));
}

function readProtocol(ctx: InboundContext, payload: LinguePayload, log: Logger): Reading {
  const sessionId = ctx.decoded.siblings.sessionId || undefined;
  log.debug({ room: ctx.message.kind === "room" ? ctx.message.room : undefined, sender: ctx.sender.label, mode: payload.mode, messageType: payload.messageType, sessionId }, "protocol message");
  const base = { kind: "protocol", payloadMode: payload.mode } as const;
  switch (payload.mode) {
    case Mode.ModelFirstRDF: {
      const modelPart = ctx.decoded.siblings.modelPart;
      // A contribution in parts counts once, at its first part.
      const later = /^\s*(?!1\s*\/)\d+\s*\//.test(modelPart ?? "");
      return { ...base, protocol: { mode: "contribution", sessionId, modelPart, content: payload.content }, evidence: later ? "other" : "contribution" };
    }
    case Mode.ModelNegotiation: {
      const negotiation = decodeNegotiation(payload.content, payload.messageType);
      const proposal = negotiation.ok && negotiation.message.type === "SolutionProposal";
      return { ...base, protocol: { mode: "negotiation", negotiation }, evidence: proposal ? "proposal" : "other" };
    }
    default:
      return { ...base, protocol: { mode: "other" }, evidence: "other" };
  }
}

function readChat(ctx: InboundContext, options: ReadOptions): Reading {
  const body = ctx.decoded.body ?? "";
  const { message } = ctx;
  const room = message.kind === "room" ? message.room : undefined;
  const nick = options.ownNick(room);
  if (room === options.primaryRoom) {
    const debating = options.sessions.debatingSessions();
    const input = debating.length ? options.chooser.debateInput(participantOf(ctx.sender, options.primaryRoom), body, debating) : null;
    if (input) return { kind: "debate-line", input };
  }
  const parsed = parseCommand(body, { nick, direct: message.kind === "direct" });
  if ("notACommand" in parsed) return { kind: "chatter" };
  if ("unknown" in parsed) return { kind: "unknown", unknown: parsed.unknown };
  options.log.debug({ room, sender: ctx.sender.label, command: "command" in parsed ? parsed.command.name : parsed.misuse.name }, "command");
  return "misuse" in parsed ? { kind: "misuse", misuse: parsed.misuse } : { kind: "command", command: parsed.command };
}

/** The reading stage: the context goes on with what the message asks. */
export function reading(options: ReadOptions): Stage<InboundContext, ReadContext> {
  return (ctx, next) => next(readMessage(ctx, options));
}
