/**
 * The digest of what a sent stanza decides, without its wording for people: the second
 * fingerprint of the sent-record, beside the digest of the whole stanza (`stanzaDigest`).
 *
 * How the coordinator says things (a message's body, the summary of a SessionComplete, a
 * private reply, a room line) changes from build to build; what it decides (which message,
 * to whom, which round, which agents, which results, status and solutions) must not change
 * when the same inputs are replayed. `verify` compares this digest strictly and the whole
 * stanza's as wording (host/sent-check.ts), so an upgrade that rewords a message is told
 * apart from a store that replays to something else.
 *
 * One function, `decisiveDigest`, makes it: the outbox when it records a stanza as sent, and
 * verify when it replays one.
 */
import { createHash } from "node:crypto";
import { LINGUE } from "../base/vocab.js";
import type { Element } from "../xmpp/stanza.js";

/**
 * The fields of a protocol message's JSON payload (Lingue `ModelNegotiation`) that are
 * wording for people, each with why: the one list of them. A path names a field of the
 * payload's object; `[]` steps into every element of a list. Everything else in the payload
 * decides: the message type, the session id, `round`, `requestedAgents`, `issues`, `results`,
 * `conforms`, `status`, `solutions` (each one's agent, plan and verdict), `model`, `repeat`,
 * the timestamp and the counts of what was left out.
 *
 * Changing this list changes every decisive digest: raise DECISIVE_SCHEME with it.
 */
export const WORDING_FIELDS: Readonly<Record<string, string>> = {
  summary:
    "ModelValidationResult and SessionComplete: the sentences people read about a validation or an outcome (session/report.ts); conforms, results, status and solutions carry what they say",
  reason: "SessionComplete: why the session ended, as a sentence; status says how it ended",
  "solutions[].verification.reason": "a plan check's verdict as one readable sentence; verdict, step and failed carry the verdict itself",
  "solutions[].verification.refutedClaim": "a sentence naming the claim of the proposal the check contradicts; the verdict and the proposal's own fields carry it",
  "solutions[].verification.trace": "an overview for people of the states the plan visits, one clipped line each; verdict, step and failed carry what the check found",
};

/**
 * The version of what a decisive digest covers (WORDING_FIELDS, and the form of lines): a
 * digest recorded under another scheme is not compared with one made now (sent-check.ts
 * treats the record as an earlier build's).
 */
export const DECISIVE_SCHEME = 1;

const PREFIX = `d${DECISIVE_SCHEME}:`;

const WORDING_PATHS: ReadonlyArray<readonly string[]> = Object.keys(WORDING_FIELDS).map((path) =>
  path
    .replace(/\[\]/g, ".[]")
    .split(".")
    .filter((step) => step !== ""),
);

/** What the digest reads of one outgoing stanza (an `Outgoing` of outgoing.ts is one). */
export interface DecisiveSource {
  readonly stanza: Element;
  /** Its kind, e.g. `SessionComplete`, `say primary`, `tell privately`. */
  readonly what: string;
  /** The nick a `tell` is for (said in the room as `nick: text`, or privately). */
  readonly addressee?: string | undefined;
}

/**
 * The digest of what the stanza decides, prefixed with its scheme (`d1:…`). A protocol
 * message (one with a Lingue payload): the stanza without its `<body>`, its JSON payload
 * without WORDING_FIELDS and with its keys in order. A plain line or private reply (`say`,
 * `tell`): its kind and recipient only, since its text is all wording.
 */
export function decisiveDigest(source: DecisiveSource): string {
  const { stanza } = source;
  const children = stanza.getChildElements();
  const hasPayload = children.some(isLinguePayload);
  const form = hasPayload
    ? ["message", sortedAttrs(stanza.attrs), children.filter((child) => !isBody(child)).map((child) => (isLinguePayload(child) ? payloadForm(child) : child.toString()))]
    : ["line", source.what, String(stanza.attrs.type ?? ""), String(stanza.attrs.to ?? ""), source.addressee ?? null];
  return PREFIX + createHash("sha256").update(JSON.stringify(form)).digest("base64url");
}

/** Whether a recorded decisive digest was made under this build's scheme, so it can be compared with one made now. */
export function comparableDecisive(recorded: string | undefined): recorded is string {
  return recorded !== undefined && recorded.startsWith(PREFIX);
}

function isBody(child: Element): boolean {
  return child.name === "body" && (child.attrs.xmlns === undefined || child.attrs.xmlns === "jabber:client");
}

function isLinguePayload(child: Element): boolean {
  return child.name === "payload" && child.attrs.xmlns === LINGUE;
}

/** The payload's attributes and content; a JSON one without its wording, keys in order. */
function payloadForm(payload: Element): unknown[] {
  const text = payload.text();
  if (payload.attrs.mime !== "application/json") return ["payload", sortedAttrs(payload.attrs), text];
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return ["payload", sortedAttrs(payload.attrs), text];
  }
  for (const path of WORDING_PATHS) json = without(json, path);
  return ["payload", sortedAttrs(payload.attrs), canonical(json)];
}

/** The value with the field at `path` left out (a copy where anything is left out; the value itself otherwise). */
function without(value: unknown, path: readonly string[]): unknown {
  const [step, ...rest] = path;
  if (step === undefined) return value;
  if (step === "[]") return Array.isArray(value) ? value.map((item) => without(item, rest)) : value;
  if (typeof value !== "object" || value === null || Array.isArray(value) || !Object.hasOwn(value, step)) return value;
  const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  if (rest.length === 0) delete copy[step];
  else copy[step] = without(copy[step], rest);
  return copy;
}

/** A JSON value with every object's keys in code-point order, so the order fields were written in does not count. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value !== "object" || value === null) return value;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([key, item]) => [key, canonical(item)]));
}

function sortedAttrs(attrs: Record<string, unknown>): Array<[string, string]> {
  return Object.entries(attrs)
    .filter(([, value]) => value !== undefined && value !== null)
    .map(([name, value]): [string, string] => [name, String(value)])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
