/**
 * An agent's contribution as the stanzas that carry it (docs/protocol.md, "Contributions in
 * parts"): one ModelFirstRDF message when it fits the stanza limit, else `n` messages with
 * `modelPart` = `k/n`, each a complete Turtle document of whole subjects. The split is the
 * one the coordinator uses for its own oversize model (model-parts.ts); blank nodes become
 * IRIs under the sender's own contribution graph, so they can never meet another agent's.
 */
import type { Element } from "../xmpp/stanza.js";
import { stanzaBytes } from "../xmpp/stanza.js";
import { encodeMessage } from "./codec.js";
import { splitModel } from "./model-parts.js";
import { Mode, sessionBaseIri } from "../base/vocab.js";

/** Who sends the contribution, where, and for which session. */
export interface ContributionAddress {
  room: string;
  sessionId: string;
  /** The sender's nick: names the graph its skolemised blank nodes live under. */
  agent: string;
}

export type ContributionStanzas = { ok: true; stanzas: Element[] } | { ok: false; error: string };

/** The largest label `partOverhead` allows for: docs/protocol.md's bound on parts. */
const MAX_PARTS = 1_000;

/** The contribution as one stanza, or as parts, each within `maxStanzaBytes` as sent. */
export function contributionStanzas(turtle: string, address: ContributionAddress, maxStanzaBytes: number): ContributionStanzas {
  const whole = wholeStanza(turtle, address);
  if (stanzaBytes(whole) <= maxStanzaBytes) return { ok: true, stanzas: [whole] };
  const budget = maxStanzaBytes - partOverhead(address);
  const skolemBase = `${sessionBaseIri(address.sessionId)}contribution/${encodeURIComponent(address.agent)}/`;
  const split = splitModel(turtle, budget, skolemBase);
  if (!split.ok) return split;
  const n = split.parts.length;
  if (n > MAX_PARTS) return { ok: false, error: `the contribution needs ${n} parts, more than the ${MAX_PARTS} a contribution may have` };
  return { ok: true, stanzas: split.parts.map((part, i) => partStanza(part, i + 1, n, address)) };
}

function wholeStanza(turtle: string, { room, sessionId }: ContributionAddress): Element {
  return encodeMessage({
    to: room,
    type: "groupchat",
    body: `Model contribution for ${sessionId}.`,
    payload: { mode: Mode.ModelFirstRDF, content: turtle },
    siblings: { sessionId },
  });
}

function partStanza(turtle: string, k: number, n: number, { room, sessionId }: ContributionAddress): Element {
  return encodeMessage({
    to: room,
    type: "groupchat",
    body: `Model contribution for ${sessionId}, part ${k} of ${n}.`,
    payload: { mode: Mode.ModelFirstRDF, content: turtle },
    siblings: { sessionId, modelPart: `${k}/${n}` },
  });
}

/** Bytes of a part stanza besides its Turtle, for labels up to `MAX_PARTS`. */
function partOverhead(address: ContributionAddress): number {
  // One character of content, because an empty payload is written `<payload …/>`.
  return stanzaBytes(partStanza("x", MAX_PARTS, MAX_PARTS, address)) - 1;
}
