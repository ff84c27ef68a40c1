/**
 * Contributions on their way to the core: a Turtle contribution whole, or in parts
 * (docs/protocol.md, "ModelFirstRDF contributions"), each checked in a model worker first.
 *
 * The rules it keeps: each part is checked alone as it arrives, so a broken one is named at
 * once; the parts of one series are kept here, at the edge (host/contribution-parts.ts),
 * and are not inputs of the core (nor journaled) until all n are in, when their union goes
 * to the core as one contribution; parts of one sender and session are taken in arrival
 * order; parts of a session that stopped taking contributions are dropped and their senders
 * told, once per contribution.
 */
import type { Logger } from "pino";
import { formatBytes } from "../base/byte-sizes.js";
import type { PartNumber } from "../protocol/part-number.js";
import { sessionBaseIri } from "../base/vocab.js";
import { sameAgent } from "../session/identity.js";
import { sessionWording } from "../session/report.js";
import type { ContributionCheck, Participant } from "../session/types.js";
import { ContributionAssembler, joinParts, type PartOutcome, type PartRefusal, type PartsLimits, type PendingSummary } from "./contribution-parts.js";
import type { Heard } from "./heard.js";
import { KeyedSequence } from "../base/keyed-sequence.js";
import type { Outbox } from "./outbox.js";
import type { SessionQueries } from "./queries.js";
import type { SessionTable } from "./session-table.js";
import type { Steps } from "./stepper.js";
import type { ContributionChecker } from "./contribution-check.js";

/** What the core is told about input for a session it does not know (it answers "no such session"). */
const UNKNOWN_SESSION: ContributionCheck = { ok: false, message: "unknown session", line: null, column: null };

/** Who a series of parts belongs to: the identity the core attributes contributions by. */
function senderKey(from: Participant): string {
  return from.identity ?? (from.jid !== undefined ? `jid:${from.jid.toLowerCase()}` : `nick:${from.nick.toLowerCase()}`);
}

/** One sender's series of parts for one session. */
type SeriesKey = { sessionId: string; sender: string };

/** What contribution intake works with. */
export interface ContributionIntakeOptions {
  table: SessionTable;
  /** Bounds on contributions in parts. */
  limits: PartsLimits;
  /** Checks a text in a model worker; `keep`: it is what the core will be given (host/contribution-check.ts). */
  checker: Pick<ContributionChecker, "check">;
  queries: SessionQueries;
  outbox: Outbox;
  log: Logger;
  /** Where the complete contribution goes to be stepped (host/stepper.ts). */
  stepper: Steps;
  /** Told of each part refused at the edge (the operations metrics count them). */
  onPartRefused?: (reason: PartRefusal) => void;
}

/** Takes contributions in, whole or in parts, and hands each complete one to the core with its check. */
export class ContributionIntake {
  /** Contributions in parts still incomplete (not inputs of the core until complete; not journaled). */
  private readonly parts: ContributionAssembler<Participant>;
  /** Parts of one series are taken one after another, in arrival order (by series). */
  private readonly partsInOrder = new KeyedSequence();

  constructor(private readonly options: ContributionIntakeOptions) {
    this.parts = new ContributionAssembler(options.limits);
  }

  /** A Turtle contribution: checked off the event loop first, then handed to the core. */
  async contribute(sessionId: string, from: Participant, turtle: string, heard?: Heard): Promise<void> {
    const { queries, table, stepper } = this.options;
    if (queries.answeredFromArchive(sessionId, from, (s, now) => sessionWording.contributionTooLate(s, true, now))) return;
    if (!table.get(sessionId)) {
      // The core answers "no such session"; no need to parse anything.
      stepper.apply({ kind: "contribution", sessionId, from, turtle, check: UNKNOWN_SESSION }, heard);
      return;
    }
    stepper.apply({ kind: "contribution", sessionId, from, turtle, check: await this.options.checker.check(sessionId, from, turtle, true) }, heard);
  }

  /** One part of a contribution sent in parts; parts of one sender and session are taken in arrival order. */
  contributePart(sessionId: string, from: Participant, part: PartNumber, turtle: string, heard?: Heard): Promise<void> {
    const key = { sessionId, sender: senderKey(from) };
    const id = `${sessionId}\u0000${key.sender}`;
    return this.partsInOrder.run(
      id,
      () => this.takePart(key, from, part, turtle, heard),
      (err) => this.options.log.error({ err, sessionId, agent: from.nick }, "failed to take a contribution part"),
    );
  }

  /** Contributions in parts of a session that stopped taking contributions are dropped, and their senders told. */
  dropClosedParts(sessionId: string): void {
    if (this.openForParts(sessionId) || !this.parts.hasSession(sessionId)) return;
    const why = this.options.table.get(sessionId)?.phase === "reasoning" ? "closed" : "complete";
    for (const dropped of this.parts.dropSession(sessionId)) {
      this.options.log.info({ sessionId, agent: dropped.from.nick, received: dropped.received, parts: dropped.n }, "incomplete contribution in parts not used: the model closed");
      this.tellDropped(dropped, why);
    }
  }

  private async takePart(key: SeriesKey, from: Participant, part: PartNumber, turtle: string, heard: Heard | undefined): Promise<void> {
    const { log, stepper, checker } = this.options;
    const { sessionId } = key;
    const label = `${part.k}/${part.n}`;
    if (!this.openForParts(sessionId)) {
      // Answered once per contribution (at its part 1), so echoed or replayed parts cost one line.
      if (part.k === 1) this.answerClosed(sessionId, from);
      else log.debug({ sessionId, agent: from.nick, part: label }, "contribution part for a session not taking contributions dropped");
      return;
    }
    if (this.parts.isQuiet(key, part)) {
      log.debug({ sessionId, agent: from.nick, part: label }, "part of a refused contribution dropped");
      return;
    }
    // A series of one part is the contribution itself: its text is kept as it is checked.
    const partCheck = await checker.check(sessionId, from, turtle, part.n === 1);
    if (!this.openForParts(sessionId)) {
      log.debug({ sessionId, agent: from.nick, part: label }, "contribution part arrived as the model closed; dropped");
      return;
    }
    if (!partCheck.ok) {
      this.parts.refuse(key, from, part.n);
      stepper.apply({ kind: "contribution", sessionId, from, turtle, check: partCheck, parts: { n: part.n, refusedPart: part.k } }, heard);
      return;
    }
    const outcome = this.parts.offer(key, from, part, turtle);
    for (const dropped of outcome.evicted) {
      log.warn({ sessionId: dropped.sessionId, agent: dropped.from.nick, received: dropped.received, parts: dropped.n }, "incomplete contribution in parts dropped: too many waiting");
      this.tellDropped(dropped, "evicted");
    }
    this.onPartOutcome(key, from, part, outcome);
    if (outcome.kind !== "complete") return;
    const union = outcome.parts.length === 1 ? (outcome.parts[0] ?? "") : joinParts(outcome.parts, sessionBaseIri(sessionId));
    const unionCheck = outcome.parts.length === 1 ? partCheck : await checker.check(sessionId, from, union, true);
    stepper.apply({ kind: "contribution", sessionId, from, turtle: union, check: unionCheck, parts: { n: part.n } }, heard);
  }

  private onPartOutcome(key: SeriesKey, from: Participant, part: PartNumber, outcome: PartOutcome<Participant>): void {
    const { log } = this.options;
    const context = { sessionId: key.sessionId, agent: from.nick, part: `${part.k}/${part.n}` };
    if ((outcome.kind === "waiting" || outcome.kind === "complete") && outcome.restarted) {
      log.info({ ...context, dropped: `${outcome.restarted.received} of ${outcome.restarted.n}` }, "contribution in parts started over by a new part 1");
    }
    switch (outcome.kind) {
      case "waiting":
        log.debug({ ...context, received: outcome.received }, "contribution part received");
        return;
      case "complete":
        log.debug(context, "contribution part received; all parts are in");
        return;
      case "ignored":
        log.debug(context, "part of a refused contribution dropped");
        return;
      case "refused": {
        this.options.onPartRefused?.(outcome.reason);
        const why =
          outcome.reason === "other-count"
            ? { reason: outcome.reason, pendingN: outcome.pending?.n ?? part.n }
            : outcome.reason === "too-large"
              ? { reason: outcome.reason, maxBytes: formatBytes(this.parts.limits.maxBytesPerContribution) }
              : { reason: outcome.reason };
        log.info({ ...context, reason: outcome.reason, dropped: outcome.pending ? `${outcome.pending.received} of ${outcome.pending.n}` : null }, "contribution part refused");
        this.options.outbox.tell(key.sessionId, from, sessionWording.partRefused(key.sessionId, part, why, this.hasContribution(key.sessionId, from)));
        return;
      }
    }
  }

  /** Whether a session takes contributions (in parts) now: it exists and its model is not yet closed. */
  private openForParts(sessionId: string): boolean {
    const s = this.options.table.get(sessionId);
    return s !== undefined && s.phase !== "reasoning" && s.phase !== "complete";
  }

  /** Part 1 of a contribution for a session that is unknown, archived or closed: one answer. */
  private answerClosed(sessionId: string, from: Participant): void {
    if (this.options.queries.answeredFromArchive(sessionId, from, sessionWording.partsTooLate)) return;
    const session = this.options.table.get(sessionId);
    // The core answers "no such session" (and logs nothing).
    if (!session) this.options.stepper.apply({ kind: "contribution", sessionId, from, turtle: "", check: UNKNOWN_SESSION });
    else this.options.outbox.tell(sessionId, from, sessionWording.partsTooLate(session));
  }

  private tellDropped(dropped: PendingSummary<Participant>, why: "closed" | "complete" | "evicted"): void {
    this.options.outbox.tell(dropped.sessionId, dropped.from, sessionWording.partsDropped(dropped.sessionId, dropped, why, this.hasContribution(dropped.sessionId, dropped.from)));
  }

  /** Whether the session holds a contribution of this agent (so "your earlier contribution still stands"). */
  private hasContribution(sessionId: string, from: Participant): boolean {
    const s = this.options.table.get(sessionId);
    return s !== undefined && Object.keys(s.contributions).some((nick) => sameAgent(nick, from.nick));
  }
}
