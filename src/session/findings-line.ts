/**
 * The findings named in the room line of a model that failed validation: what is wrong, on
 * which item, and whose it is, so people in the room see at a glance who has what to fix
 * without opening the log room. A pure function of the findings the validation result
 * carries, so a replay of the log says the same line. Findings are text agents wrote (their
 * IRIs, names and the literals a shape quotes) or nicks people chose: each piece is made
 * XML-safe and shortened here, so the line stays one line within the stanza limit.
 */
import { replaceXmlForbiddenChars } from "../xmpp/xml-chars.js";
import { clip, names } from "./text.js";
import type { ValidationFinding } from "./types.js";

/** How many findings the line names; the rest are counted and left to `mfr-status <id>`. */
export const FINDINGS_NAMED = 3;
/** The most one named finding takes, in UTF-16 units: "<what> on <item> (<whose>)". */
export const FINDING_MAX = 120;

const WHAT_MAX = 50;
const ITEM_MAX = 36;
const WHOSE_MAX = 24;
const NICK_MAX = 16;
/** Session ids are short; one that is not is shortened where the line repeats it. */
const ID_MAX = 80;

/**
 * "Violations: <f1>; <f2>; <f3>." or, past three, "…; <f3>; and N more: mfr-status <id>". `shown`
 * turns an IRI minted under the session's base into the short form people read (`#truck`).
 * Empty when there is no finding to name.
 */
export function namedFindings(sessionId: string, findings: readonly ValidationFinding[], shown: (text: string) => string = (t) => t): string {
  if (findings.length === 0) return "";
  const named = findings.slice(0, FINDINGS_NAMED).map((f) => findingWords(f, shown));
  const more = findings.length - named.length;
  const tail = more > 0 ? `; and ${more} more: mfr-status ${clip(safe(sessionId), ID_MAX)}` : "";
  return `Violations: ${named.join("; ")}${tail || "."}`;
}

/** One finding in a few words: "Entity has no name on #truck (alice)". At most FINDING_MAX. */
export function findingWords(f: ValidationFinding, shown: (text: string) => string = (t) => t): string {
  const what = clip(safe(shown(f.message)), WHAT_MAX) || "a violation";
  const item = shortItem(safe(shown(f.focusNode)));
  // A finding on the coordinator's own node (e.g. "the model has no Entity") is everyone's to fix.
  const whose = f.agents.length ? clip(names(f.agents.map((nick) => clip(safe(nick), NICK_MAX))), WHOSE_MAX) : "everyone";
  return clip(`${what}${item ? ` on ${item}` : ""} (${whose})`, FINDING_MAX);
}

/**
 * An item short enough to read: a long IRI keeps its end, where the local name that tells
 * items apart is; a blank node (`_:b0 "Truck 1"`) keeps its start, where its id and name are.
 */
function shortItem(item: string): string {
  const flat = item.replace(/\s+/g, " ").trim();
  if (flat.length <= ITEM_MAX || flat.startsWith("_:")) return clip(flat, ITEM_MAX);
  let end = flat.slice(flat.length - (ITEM_MAX - 1));
  // Never start with the second half of a surrogate pair: alone, XML forbids it.
  if (isLowSurrogate(end.charCodeAt(0))) end = end.slice(1);
  return `…${end}`;
}

/** Characters XML forbids become U+FFFD, line breaks spaces: the line stays one line and sendable. */
function safe(text: string): string {
  return replaceXmlForbiddenChars(text).replace(/\s+/g, " ");
}

function isLowSurrogate(codeUnit: number): boolean {
  return codeUnit >= 0xdc00 && codeUnit <= 0xdfff;
}
