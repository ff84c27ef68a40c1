/**
 * The findings named in the room line of a model that failed validation, in plain words and
 * whole: what is wrong with which item, and who is to fix it ("the goal #delivered has no
 * label or description — planner to fix"), so people in the room see at a glance who has
 * what to fix without opening the log room. The shape's own message (its full text, with the
 * vocabulary's names) stays in `mfr-status` and the web view. A pure function of the findings
 * the validation result carries, so a replay of the log says the same line.
 *
 * Findings hold text agents wrote (their IRIs, names, the literals a shape quotes) or nicks
 * people chose: each piece is made XML-safe and bounded here, so the line stays one line
 * within the stanza limit; a finding is named whole or not at all (then it is counted).
 */
import { replaceXmlForbiddenChars } from "../base/xml-chars.js";
import { clip, inline, names } from "../base/text.js";
import type { ValidationFinding } from "./types.js";

/** How many findings the line names at most; the rest are counted and left to `mfr-status <id>`. */
export const FINDINGS_NAMED = 3;
/** The most one named finding takes, in UTF-16 units: "<what is wrong with the item> — <whose> to fix". */
export const FINDING_MAX = 160;
/** The most the named findings take together; a finding that would go past it is counted instead. */
export const FINDINGS_MAX = 300;

const ITEM_MAX = 36;
const WHOSE_MAX = 40;
const NICK_MAX = 16;
const PATH_MAX = 24;
/** Session ids are short; one that is not is shortened where the line repeats it. */
const ID_MAX = 80;

/** The shapes' messages (shapes/mfr-shapes.ttl), as people say them of an item. */
const PLAIN: ReadonlyArray<{ readonly message: RegExp; readonly say: (item: string, path: string) => string }> = [
  { message: /^The model has no mfr:Entity\b/, say: () => "the model describes no entity" },
  { message: /^Every Entity needs an mfr:entityType\b/, say: (item) => `the entity ${item} has no type` },
  { message: /^Every Entity needs a name\b/, say: (item) => `the entity ${item} has no name` },
  { message: /^Every Action needs an mfr:actionName\b/, say: (item) => `the action ${item} has no name` },
  { message: /^An Action has exactly one mfr:actionName\b/, say: (item) => `the action ${item} has more than one name` },
  { message: /^Every Precondition needs exactly one mfr:expression\b/, say: (item) => `the precondition ${item} needs exactly one expression` },
  { message: /^A Precondition's mfr:expression must not be empty\b/, say: (item) => `the precondition ${item} has an empty expression` },
  { message: /^Every Effect needs exactly one mfr:expression\b/, say: (item) => `the effect ${item} needs exactly one expression` },
  { message: /^An Effect's mfr:expression must not be empty\b/, say: (item) => `the effect ${item} has an empty expression` },
  { message: /^Every Constraint needs an mfr:constraintType\b/, say: (item) => `the constraint ${item} has no type` },
  { message: /^Every Constraint needs at least one mfr:appliesTo\b/, say: (item) => `the constraint ${item} does not say what it applies to` },
  { message: /^Every Constraint needs an mfr:constraintExpression or an rdfs:comment\b/, say: (item) => `the constraint ${item} is not stated (no expression or comment)` },
  { message: /^Every Goal needs an rdfs:label, rdfs:comment or mfr:expression\b/, say: (item) => `the goal ${item} has no label or description` },
  { message: /^(must be a plain or language-tagged string|is not a plain string|is not a language-tagged string)/, say: (item, path) => `${path || "a value"} of ${item} is not a plain string` },
];

/**
 * "the model has 2 violations: <f1>; <f2>." or, past what fits, "…: <f1>; <f2>; and N more
 * (mfr-status <id>)." — the part of the room line after the session's name. `shown` turns an
 * IRI minted under the session's base into the short form people read (`#truck`). Empty when
 * there is no finding to name.
 */
export function namedFindings(sessionId: string, findings: readonly ValidationFinding[], shown: (text: string) => string = (t) => t): string {
  if (findings.length === 0) return "";
  const named: string[] = [];
  let length = 0;
  for (const f of findings.slice(0, FINDINGS_NAMED)) {
    const words = findingWords(f, shown);
    if (named.length > 0 && length + words.length + 2 > FINDINGS_MAX) break;
    named.push(words);
    length += words.length + 2;
  }
  const more = findings.length - named.length;
  const tail = more > 0 ? `; and ${more} more (mfr-status ${clip(safe(sessionId), ID_MAX)})` : "";
  return `${named.join("; ")}${tail}`;
}

/** One finding in plain words: "the goal #delivered has no label or description — planner to fix". At most FINDING_MAX. */
export function findingWords(f: ValidationFinding, shown: (text: string) => string = (t) => t): string {
  const item = shortItem(safe(shown(f.focusNode))) || "an item";
  const path = clip(localName(safe(f.path ?? "")), PATH_MAX);
  const message = safe(f.message);
  const plain = PLAIN.find((p) => p.message.test(message));
  const what = plain ? plain.say(item, path) : `${item}: ${inline(message) || "a violation"}`;
  // A finding on the coordinator's own node (e.g. "the model has no Entity") is everyone's to fix.
  const whose = f.agents.length ? clip(names(f.agents.map((nick) => clip(safe(nick), NICK_MAX))), WHOSE_MAX) : "everyone";
  const tail = ` — ${whose} to fix`;
  return `${clip(what, FINDING_MAX - tail.length)}${tail}`;
}

/** The local name of a property IRI ("rdfs:label" for its full IRI). */
function localName(iri: string): string {
  const at = Math.max(iri.lastIndexOf("/"), iri.lastIndexOf("#"));
  return at >= 0 && at < iri.length - 1 ? iri.slice(at + 1) : iri;
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
