/**
 * The check of a contribution (or one part of one) in a model worker, off the event loop:
 * syntax, limits, what it adds. The core is given the check with the contribution.
 *
 * The rules it keeps: a statement may not be larger than the model's parts can carry (less a
 * margin for blank-node labels); a text the core will be given and that is large enough to be
 * a blob is stored by the worker, so its journal entry refers to it rather than holding it;
 * a check that could not be run is a refusal that says why, never a pass.
 */
import type { Logger } from "pino";
import { sessionBaseIri } from "../base/vocab.js";
import type { ContributionCheck, Participant, SessionSettings } from "../session/types.js";
import { worthABlob, type BlobRef } from "./journal-records.js";
import { maxModelStatementBytes, type RenderContext } from "./outgoing.js";
import type { ModelService } from "./model-service.js";

/** Bytes left for n3's blank-node label prefixes (`b12_`) in a statement measured on arrival. */
export const BLANK_LABEL_MARGIN = 64;

/** What a contribution check works with. */
export interface ContributionCheckOptions {
  models: ModelService;
  settings: SessionSettings;
  render: RenderContext;
  log: Logger;
  /** Notes a text the worker stored as a blob (the journal's `adoptBlob`); none: texts stay inline. */
  adopt: ((sessionId: string, value: string | object, ref: BlobRef) => void) | undefined;
}

/**
 * Checks a contribution (or one part) alone in the model worker. With `keep` (the text is
 * what the core will be given) and a text large enough to be a blob, the worker also stores
 * it, and the journal adopts the blob.
 */
export async function checkContribution(options: ContributionCheckOptions, sessionId: string, from: Participant, turtle: string, keep: boolean): Promise<ContributionCheck> {
  const { models, settings, render, log, adopt } = options;
  const base = sessionBaseIri(sessionId);
  const answer = await models.check({
    turtle,
    baseIri: base,
    graphIri: `${base}contribution/${encodeURIComponent(from.nick)}`,
    maxTriples: settings.maxTriplesPerContribution,
    // Blank-node labels grow by a few characters when the merged model is re-read for splitting.
    maxStatementBytes: maxModelStatementBytes(sessionId, render) - BLANK_LABEL_MARGIN,
    skolemBase: base,
    ...(keep && adopt && worthABlob(turtle) ? { keepFor: sessionId } : {}),
  }, { key: sessionId });
  if (answer.ok && answer.stored !== undefined) adopt?.(sessionId, turtle, { digest: answer.stored, as: "text" });
  if (answer.ok && answer.storeError !== undefined) log.warn({ sessionId, agent: from.nick, error: answer.storeError }, "the model worker could not store the contribution; it is logged inline");
  return !answer.ok
    ? { ok: false, message: `it could not be checked (${answer.error})`, line: null, column: null }
    : answer.check.ok
      ? { ok: true, tripleCount: answer.check.tripleCount, counts: answer.check.counts }
      : { ok: false, message: answer.check.error.message, line: answer.check.error.line, column: answer.check.error.column, ...(answer.check.error.refused ? { refused: true as const } : {}) };
}

/** The check as an object the contribution intake is given (host/contribution-intake.ts): `checkContribution` with its options. */
export class ContributionChecker {
  constructor(private readonly options: ContributionCheckOptions) {}

  /** Checks a text in a model worker; `keep`: it is what the core will be given. */
  check(sessionId: string, from: Participant, turtle: string, keep: boolean): Promise<ContributionCheck> {
    return checkContribution(this.options, sessionId, from, turtle, keep);
  }
}
