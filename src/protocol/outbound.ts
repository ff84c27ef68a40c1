/**
 * Turns a protocol message from the core into the stanzas that carry it, never exceeding
 * the stanza limit. Lists that can be shortened without lying are shortened (and the
 * number left out is stated); a model too large for one stanza is sent in parts.
 */
import type { Broadcast } from "../session/step-io.js";
import { escapeXmlForbiddenInJson } from "../base/xml-chars.js";
import { stanzaBytes, textWireBytes, type Element } from "../xmpp/stanza.js";
import { encodeMessage } from "./codec.js";
import { modelPartSources } from "./model-parts.js";
import { messageTypeIri, negotiationJson } from "./negotiation.js";
import { Mode } from "../base/vocab.js";

export interface OutboundContext {
  room: string;
  now: number;
  maxStanzaBytes: number;
  /** Base for IRIs minted for blank nodes when a model is split. */
  skolemBase: string;
}

export type OutboundStanzas = { ok: true; stanzas: Element[]; note?: string } | { ok: false; error: string };

/** Every stanza of `protocolSends`, built now (for callers that send at once, and tests). */
export function protocolStanzas(message: Broadcast, body: string | undefined, ctx: OutboundContext): OutboundStanzas {
  const planned = protocolSends(message, body, ctx);
  if (!planned.ok) return planned;
  const stanzas = planned.sends.map((send) => send.build());
  return planned.note === undefined ? { ok: true, stanzas } : { ok: true, stanzas, note: planned.note };
}

/**
 * One stanza of a protocol message, built when its turn to be sent comes. Every one is
 * within the stanza limit (measured, or by construction), so the connection need not
 * measure it again.
 */
export interface StanzaSource {
  build: () => Element;
  /** A part of a model sent in parts: bulk, paced so that replies to people are not stuck behind it. */
  bulk: boolean;
}

export type OutboundSends = { ok: true; sends: StanzaSource[]; note?: string } | { ok: false; error: string };

/**
 * The stanzas that carry a message, each built when its turn to be sent comes: a model's
 * parts one at a time. A model longer (in UTF-16 units) than the stanza limit cannot fit in
 * one stanza (every unit is at least one byte on the wire, and escaping only adds), so it goes
 * in parts without building the 9 MB single stanza first.
 */
export function protocolSends(message: Broadcast, body: string | undefined, ctx: OutboundContext): OutboundSends {
  if (message.type === "SolutionRequest" && message.model.length > ctx.maxStanzaBytes) return modelInParts(message, body, ctx);
  const single = build(message, body, ctx);
  if (stanzaBytes(single) <= ctx.maxStanzaBytes) return { ok: true, sends: [{ build: () => single, bulk: false }] };
  if (message.type === "SolutionRequest") return modelInParts(message, body, ctx);
  const shrunk = shrunkToFit(message, body, ctx);
  if (!shrunk.ok) return shrunk;
  return { ok: true, sends: [{ build: () => shrunk.stanza, bulk: false }], note: shrunk.note };
}

/** A message with a list, over the limit: its lists shortened (the number left out stated) until it fits. */
function shrunkToFit(message: Exclude<Broadcast, { type: "SolutionRequest" }>, body: string | undefined, ctx: OutboundContext): Shrunk {
  switch (message.type) {
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

/**
 * The model goes first as `ModelFirstRDF` parts (siblings `sessionId` and `modelPart` = "k/n"),
 * then one SolutionRequest whose `model` is empty and whose `modelParts` says how many to
 * expect. Receivers parse each part and take their union. Parts are bulk: paced when sent.
 */
function modelInParts(message: Extract<Broadcast, { type: "SolutionRequest" }>, body: string | undefined, ctx: OutboundContext): OutboundSends {
  const parts = modelPartSources(message.model, { room: ctx.room, sessionId: message.sessionId }, ctx.maxStanzaBytes, ctx.skolemBase);
  if (!parts.ok) return parts;
  const n = parts.parts.length;
  const request = partsRequest(message, body, ctx, n, parts.triples);
  if (stanzaBytes(request) > ctx.maxStanzaBytes) return { ok: false, error: "the SolutionRequest is over the stanza limit even without its model" };
  const sends = [...parts.parts.map((build) => ({ build, bulk: true })), { build: () => request, bulk: false }];
  return { ok: true, sends, note: `model sent in ${n} parts` };
}

/** The SolutionRequest that follows a model's `n` parts: empty `model`, `modelParts` says how many. */
function partsRequest(message: Extract<Broadcast, { type: "SolutionRequest" }>, body: string | undefined, ctx: OutboundContext, n: number, triples: number): Element {
  return build({ ...message, model: "" }, body === undefined ? undefined : `${body} The model follows in ${n} parts.`, ctx, { modelParts: n, modelTriples: triples });
}

function build(message: Broadcast, body: string | undefined, ctx: OutboundContext, extra: Record<string, unknown> = {}): Element {
  return encodeMessage({
    to: ctx.room,
    type: "groupchat",
    body,
    payload: { mode: Mode.ModelNegotiation, content: JSON.stringify(negotiationJson(message, ctx.now, extra)), messageType: messageTypeIri(message) },
    siblings: { sessionId: message.sessionId },
  });
}

/** Binary search for the longest prefix of a list that fits. */
type Shrunk = { ok: true; stanza: Element; note: string } | { ok: false; error: string };

function shrinkList(length: number, withFirst: (keep: number) => Element, ctx: OutboundContext): Shrunk {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (stanzaBytes(withFirst(mid)) <= ctx.maxStanzaBytes) lo = mid;
    else hi = mid - 1;
  }
  const stanza = withFirst(lo);
  if (stanzaBytes(stanza) > ctx.maxStanzaBytes) return { ok: false, error: "the message is over the stanza limit even without its list" };
  return { ok: true, stanza, note: `${length - lo} list entries left out to fit the stanza limit` };
}

/**
 * Whether a problem text can be carried by every message that quotes it in full (the
 * contribution request, each fix round, the Chair's invitation): its wire size may take at
 * most a quarter of a stanza, leaving the rest for the other fields. Checked when a person
 * states the problem, so a session never starts that could not be announced.
 */
export function problemFits(problem: string, maxStanzaBytes: number): Fit {
  return fitsIn(problem, Math.floor(maxStanzaBytes / 4));
}

/**
 * Whether a proposal's solution can be shown in the SessionComplete: alone it may take at
 * most half a stanza as sent, leaving the rest for the summary and the other fields. (With
 * several large ones, the lowest-ranked are left out and counted, see `shrinkList`.)
 */
export function proposalFits(solution: unknown, maxStanzaBytes: number): Fit {
  return fitsIn(solution, Math.floor(maxStanzaBytes / 2));
}

export type Fit = { ok: true } | { ok: false; bytes: number; max: number };

/** A value's size as JSON inside a payload on the wire (after `\u` and XML escaping). */
function fitsIn(value: unknown, max: number): Fit {
  const bytes = textWireBytes(escapeXmlForbiddenInJson(JSON.stringify(value)));
  return bytes <= max ? { ok: true } : { ok: false, bytes, max };
}
