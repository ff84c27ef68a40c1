/**
 * Protocol messages, carried to the session host: a contribution whole or in parts, a
 * solution proposal, or a negotiation message only noted. What cannot be carried (no
 * session id, an unreadable part number or payload, a proposal too large to show in the
 * SessionComplete) is refused, counted and answered privately to its sender.
 */
import type { Logger } from "pino";
import { wording } from "./wording.js";
import { proposalFits } from "../protocol/outbound.js";
import { readPartNumber } from "../protocol/part-number.js";
import type { RefusalReason } from "../ops/refusals.js";
import type { ContributionIntake } from "../host/contribution-intake.js";
import type { ProposalIntake } from "../host/proposal-intake.js";
import { isRouted, type IdentifiedContext, type RoutedContext } from "./context.js";
import type { ProtocolReading } from "./reading.js";
import type { Stage } from "./chain.js";

/** What carrying protocol messages needs: the host, the stanza limit proposals must fit, and where refusals are counted. */
export interface CarryOptions {
  /** Where contributions and proposals go in (the host's intakes, host/contribution-intake.ts and host/proposal-intake.ts). */
  intake: { contributions: Pick<ContributionIntake, "contribute" | "contributePart">; proposals: Pick<ProposalIntake, "propose"> };
  maxStanzaBytes: number;
  refused: (reason: RefusalReason) => void;
  log: Logger;
}

/** Hands one protocol message to the host; resolves when the next message may follow. */
export async function carryProtocol(ctx: IdentifiedContext, protocol: ProtocolReading, options: CarryOptions): Promise<void> {
  const { intake, refused, log } = options;
  const from = ctx.standing.participant;
  const sender = ctx.sender.label;
  if (protocol.mode === "contribution") {
    const { sessionId, modelPart, content } = protocol;
    if (!sessionId) {
      refused("no-session-id");
      await ctx.replyPrivately("Your Turtle contribution has no <sessionId> element beside the payload, so I cannot tell which session it is for.");
      return;
    }
    if (modelPart === undefined) {
      await intake.contributions.contribute(sessionId, from, content, ctx.heard);
      return;
    }
    // One part of a contribution too large for one stanza: assembled at the edge (host/contribution-parts.ts).
    const part = readPartNumber(modelPart);
    if (!part.ok) {
      refused("bad-model-part");
      log.info({ sender, sessionId, modelPart }, "contribution part with an unreadable modelPart refused");
      await ctx.replyPrivately(wording.badModelPart(sessionId, modelPart, part.error));
      return;
    }
    await intake.contributions.contributePart(sessionId, from, part.part, content, ctx.heard);
    return;
  }
  if (protocol.mode === "other") return;
  const decoded = protocol.negotiation;
  if (!decoded.ok) {
    refused("malformed-payload");
    log.info({ sender, err: decoded.error, sessionId: decoded.sessionId }, "unreadable ModelNegotiation payload");
    await ctx.replyPrivately(`I could not read your ModelNegotiation message: ${decoded.error}. Nothing was changed.`);
    return;
  }
  const m = decoded.message;
  if (m.type !== "SolutionProposal") {
    log.info({ sender, type: m.type, sessionId: m.sessionId }, "informational protocol message noted");
    return;
  }
  const fits = proposalFits(m.solution, options.maxStanzaBytes);
  if (!fits.ok) {
    refused("proposal-too-large");
    log.info({ sender, sessionId: m.sessionId, bytes: fits.bytes }, "proposal too large to show in SessionComplete refused");
    await ctx.replyPrivately(wording.proposalTooLarge(fits.bytes, fits.max));
    return;
  }
  // Not awaited live: the plan check runs in a model worker, and other stanzas need not
  // wait for it. Caught up: the next message waits, since it may come after a deadline.
  const proposed = intake.proposals.propose(m.sessionId, from, m.solution, ctx.heard);
  if (ctx.heard?.caughtUp) await proposed;
}

/**
 * The stage after identifying: a protocol message is carried to the host's intakes here, and
 * goes no further; every other message goes on to routing (./route.ts).
 */
export function carried(options: CarryOptions): Stage<IdentifiedContext, RoutedContext> {
  return async (ctx, next) => {
    if (isRouted(ctx)) return next(ctx);
    if (ctx.reading.kind === "protocol") await carryProtocol(ctx, ctx.reading.protocol, options);
  };
}
