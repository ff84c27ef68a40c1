/**
 * Reading the plain-text lines of a debate that existing Chair agents run (docs/protocol.md,
 * "Debate with a Chair"): the Chair's start and outcome, participants' positions. Parsing at
 * the edge, like commands: the names of a consensus come out as written; which agents they
 * mean is a rule of the core (session/selection-names.ts).
 *
 * Chair agents are language models, so their wording varies: case, markdown bold, an address
 * to someone ("Chair: …"), a prefix ("Noted. Consensus reached: …"), "Consensus: use X and Y",
 * names followed by words ("prolog agent", "mistral for this problem"). Reading is liberal;
 * anything not understood is `null`.
 */
import { clip } from "../base/text.js";

export type DebateLine =
  | { kind: "started" }
  | { kind: "position" | "support" | "objection"; text: string }
  | { kind: "consensus"; names: string[]; text: string }
  | { kind: "no-consensus"; text: string };

/** Room bodies are bounded upstream; this keeps a pathological body from costing regex time. */
const MAX_BODY = 4000;
const MAX_TEXT = 500;
const clipLine = (text: string): string => clip(text, MAX_TEXT);
const MAX_NAMES = 20;

/**
 * Reads one room message of a debate. A consensus (or its absence) anywhere in the body wins,
 * in any sentence of any line, because Chairs often acknowledge or summarise first ("Noted.
 * Consensus reached: …") and conclude later; otherwise the first debate sentence counts.
 */
export function parseDebateLine(body: string): DebateLine | null {
  const lines = body.slice(0, MAX_BODY).split(/\r?\n/).map(cleanLine).filter((l) => l !== "");
  // Each sentence is tried with what follows it, so "Consensus reached:" can take the next line.
  const sentences = lines.flatMap((line) => line.split(/(?<=[.!?])\s+(?=\S)/));
  let first: DebateLine | null = null;
  for (let i = 0; i < sentences.length; i++) {
    const parsed = classifyAddressed(sentences[i] as string, sentences.slice(i + 1));
    if (!parsed) continue;
    if (parsed.kind === "consensus" || parsed.kind === "no-consensus") return parsed;
    first ??= parsed;
  }
  return first;
}

/** Tries the line as written, then without a leading address ("Chair: …", "@Coordinator, …"). */
function classifyAddressed(line: string, rest: string[]): DebateLine | null {
  const direct = classify(line, rest);
  if (direct) return direct;
  const address = /^@?[\p{L}\p{N}_.-]{1,40}\s*[:,]\s*(.+)$/u.exec(line);
  return address?.[1] ? classify(address[1], rest) : null;
}

const NO_CONSENSUS =
  /^(?:no consensus|consensus (?:was |has )?not (?:been )?reached|consensus could not be reached|consensus failed|(?:the )?debate (?:ended|closed|concluded|timed out) without (?:a )?consensus)\b/i;
/**
 * A consensus needs its verb ("Consensus reached …") or a separator ("Consensus: …"), so that
 * "Consensus is forming around X" is not taken for one.
 */
const CONSENSUS = [
  /^consensus\s+(?:has\s+been\s+|was\s+|is\s+)?(?:reached|achieved|found|agreed)\b[\s:.!,\-–—]*(.*)$/i,
  /^consensus\s*[:\-–—]\s*(.*)$/i,
  /^(?:we\s+have(?:\s+reached)?|we(?:'ve|\s+have)?\s+reached|the)\s+consensus(?:\s+is)?\s*[:\-–—]?\s*(.+)$/i,
];
/** "Use X, Y and Z for this problem." on its own; the trailing phrase keeps "use 1,3" and chatter out. */
const USE_FOR_PROBLEM = /^use\s+(.+?)\s+(?:for|on|to solve)\s+(?:this|the)\s+(?:problem|issue|task)\b/i;
const STARTED = /^(?:the\s+)?debate\s+(?:has\s+)?(?:started|begun|begins|opened|is\s+open)\b/i;
const CONTRIBUTION = /^(position|support|objection)s?\s*[:\-–—]\s*(.+)$/i;

function classify(line: string, rest: string[]): DebateLine | null {
  if (NO_CONSENSUS.test(line)) return { kind: "no-consensus", text: clipLine(line) };
  const consensus = firstMatch(CONSENSUS, line);
  if (consensus) {
    const said = consensus[1]?.trim() ?? "";
    // "Consensus reached:" alone on a line: the names follow on the next line.
    if (said === "") return { kind: "consensus", names: namesIn(rest[0] ?? ""), text: clipLine(`${line} ${rest[0] ?? ""}`) };
    return { kind: "consensus", names: namesIn(said), text: clipLine(line) };
  }
  const use = USE_FOR_PROBLEM.exec(line);
  if (use?.[1]) return { kind: "consensus", names: namesIn(use[1]), text: clipLine(line) };
  if (STARTED.test(line)) return { kind: "started" };
  const contribution = CONTRIBUTION.exec(line);
  if (contribution?.[1] && contribution[2]) {
    const kind = contribution[1].toLowerCase() as "position" | "support" | "objection";
    return { kind, text: clipLine([contribution[2], ...rest].join(" ")) };
  }
  return null;
}

/**
 * The tool names in a consensus: after "use"/"using"/"choose" when present, within the first
 * sentence, before a trailing "for …"/"to …" phrase, split on commas, "and", "&", "+", "/".
 */
function namesIn(text: string): string[] {
  let said = text.replace(/\([^)]*\)/g, " ");
  const verb = /\b(?:use|using|choose|chosen|select|selected|go with|agents?\s*:)\s+(.*)$/i.exec(said);
  if (verb?.[1]) said = verb[1];
  said = (said.split(/[.;!?](?:\s|$)/)[0] ?? "").replace(FOR_THIS_PROBLEM, "");
  return splitNames(said)
    .map((n) => cleanFragment(stripTrailingPhrase(n)))
    .filter((n) => n !== "")
    .slice(0, MAX_NAMES);
}

function firstMatch(patterns: readonly RegExp[], line: string): RegExpExecArray | null {
  for (const pattern of patterns) {
    const match = pattern.exec(line);
    if (match) return match;
  }
  return null;
}

/** Splits a list of names on the separators people and Chairs write. */
function splitNames(text: string): string[] {
  return text
    .split(/\s*(?:,|&|\+|\/|\band\b|\bplus\b|\bas well as\b)\s*/i)
    .map((n) => n.trim())
    .filter((n) => n !== "");
}

const FOR_THIS_PROBLEM = /\s+(?:for|on|to solve)\s+(?:this|the|that)\s+(?:problem|issue|task|question)\b.*$/i;
const FILLER = /^(?:the|a|an|use|using|both|agents?|tools?|and|with|also|only|just|we|will|should|then|plus)\s+/i;
const TRAILING = /\s+(?:for|to|on|in|because|since|as|so|which|who|that|with|agents?|tools?)\b.*$/i;

function stripTrailingPhrase(text: string): string {
  return text.replace(TRAILING, "").trim();
}

function cleanFragment(fragment: string): string {
  let f = fragment.replace(/^[\s"'`“”‘’[\]()<>.:,;!?-]+|[\s"'`“”‘’[\]()<>.:,;!?-]+$/g, "");
  for (let previous = ""; previous !== f; ) {
    previous = f;
    f = f.replace(FILLER, "");
  }
  return f.trim();
}

/** Removes markdown that Chairs add: quote marks, headings, bullets, bold/italic markers, code ticks. */
function cleanLine(line: string): string {
  return line
    .replace(/\*+|`+|__+/g, "")
    .replace(/^\s*(?:>+\s*)*(?:#+\s*)?(?:[-•]\s+|\d+[.)]\s+)?/, "")
    .replace(/\s+/g, " ")
    .trim();
}

