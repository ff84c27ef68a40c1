/**
 * Turns a protocol message from the core into the stanzas that carry it, never exceeding
 * the stanza limit. Lists that can be shortened without lying are shortened (and the
 * number left out is stated); a model too large for one stanza is sent in parts.
 */
import type { Broadcast } from "../session/types.js";
import { stanzaBytes, type Element } from "../xmpp/stanza.js";
import { encodeMessage } from "./codec.js";
import { splitModel } from "./model-parts.js";
import { messageTypeIri, negotiationJson } from "./negotiation.js";
import { Mode } from "./vocab.js";

export interface OutboundContext {
  room: string;
  now: number;
  maxStanzaBytes: number;
  /** Base for IRIs minted for blank nodes when a model is split. */
  skolemBase: string;
}

export type OutboundStanzas = { ok: true; stanzas: Element[]; note?: string } | { ok: false; error: string };

export function protocolStanzas(message: Broadcast, body: string, ctx: OutboundContext): OutboundStanzas {
  const single = build(message, body, ctx);
  if (stanzaBytes(single) <= ctx.maxStanzaBytes) return { ok: true, stanzas: [single] };
  switch (message.type) {
    case "SolutionRequest":
      return modelInParts(message, body, ctx);
    case "ModelValidationResult":
      return shrinkList(message.results.length, (keep) => build({ ...message, results: message.results.slice(0, keep), omitted: message.omitted + message.results.length - keep }, body, ctx), ctx);
    case "SessionComplete":
      return shrinkList(message.solutions.length, (keep) => build({ ...message, solutions: message.solutions.slice(0, keep) }, body, ctx, { omittedSolutions: message.solutions.length - keep }), ctx);
    case "ModelContributionRequest": {
      const issues = message.issues ?? {};
      const longest = Math.max(0, ...Object.values(issues).map((l) => l.length));
      return shrinkList(longest, (keep) => build({ ...message, issues: Object.fromEntries(Object.entries(issues).map(([a, l]) => [a, l.slice(0, keep)])) }, body, ctx), ctx);
    }
  }
}

function build(message: Broadcast, body: string, ctx: OutboundContext, extra: Record<string, unknown> = {}): Element {
  return encodeMessage({
    to: ctx.room,
    type: "groupchat",
    body,
    payload: { mode: Mode.ModelNegotiation, content: JSON.stringify(negotiationJson(message, ctx.now, extra)), messageType: messageTypeIri(message) },
    siblings: { sessionId: message.sessionId },
  });
}

/** Binary search for the longest prefix of a list that fits. */
function shrinkList(length: number, withFirst: (keep: number) => Element, ctx: OutboundContext): OutboundStanzas {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (stanzaBytes(withFirst(mid)) <= ctx.maxStanzaBytes) lo = mid;
    else hi = mid - 1;
  }
  const stanza = withFirst(lo);
  if (stanzaBytes(stanza) > ctx.maxStanzaBytes) return { ok: false, error: "the message is over the stanza limit even without its list" };
  return { ok: true, stanzas: [stanza], note: `${length - lo} list entries left out to fit the stanza limit` };
}

/**
 * The model goes first as `ModelFirstRDF` parts (siblings `sessionId` and `modelPart` = "k/n"),
 * then one SolutionRequest whose `model` is empty and whose `modelParts` says how many to
 * expect. Receivers parse each part and take their union.
 */
function modelInParts(message: Extract<Broadcast, { type: "SolutionRequest" }>, body: string, ctx: OutboundContext): OutboundStanzas {
  const overhead = stanzaBytes(
    encodeMessage({ to: ctx.room, type: "groupchat", body: partBody(message.sessionId, 999, 999), payload: { mode: Mode.ModelFirstRDF, content: "" }, siblings: { sessionId: message.sessionId, modelPart: "999/999" } }),
  );
  // XML escaping can grow Turtle (`<` → `&lt;`), so leave a quarter of the room for it.
  const budget = Math.floor((ctx.maxStanzaBytes - overhead) * 0.75);
  const split = splitModel(message.model, budget, ctx.skolemBase);
  if (!split.ok) return split;
  const n = split.parts.length;
  const stanzas = split.parts.map((part, i) =>
    encodeMessage({ to: ctx.room, type: "groupchat", body: partBody(message.sessionId, i + 1, n), payload: { mode: Mode.ModelFirstRDF, content: part }, siblings: { sessionId: message.sessionId, modelPart: `${i + 1}/${n}` } }),
  );
  const oversize = stanzas.find((s) => stanzaBytes(s) > ctx.maxStanzaBytes);
  if (oversize) return { ok: false, error: "a model part is over the stanza limit after escaping" };
  stanzas.push(build({ ...message, model: "" }, `${body} The model follows in ${n} parts.`, ctx, { modelParts: n, modelTriples: split.triples }));
  return { ok: true, stanzas, note: `model sent in ${n} parts` };
}

function partBody(sessionId: string, k: number, n: number): string {
  return `Model for ${sessionId}, part ${k} of ${n}`;
}
