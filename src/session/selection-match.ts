/**
 * Choosing agents from the room for a problem, without a Chair (or after a debate without
 * consensus): match the problem's words against what each candidate declares (nick,
 * capabilities, contribution kinds, description, specific Lingue modes), and either choose,
 * with one line of why per agent, ask a person, or invite everyone who might be an agent.
 *
 * The rules, exactly (all counts are of distinct problem-word stems, see selection-words.ts):
 * - Candidates are the room's (the shell leaves out the coordinator, the Chair and known
 *   people), minus `exclude`. Agents that need approval are candidates like any other; the
 *   core asks for approval.
 * - NOBODY: no candidate at all → `everyone` with no agents (anyone who answers is asked).
 * - An agent's score is how many of the problem's stems occur among its declared words.
 * - NOTHING TO GO BY: every candidate scores 0 and none declares anything (existing agents
 *   have no profile) → `everyone`: all candidates are asked, and the room is told so.
 * - NO FIT: every candidate scores 0 but some declare what they can do → `unclear`.
 * - Otherwise the qualified agents are those scoring at least half the best score (rounded
 *   up), ordered by score (high first), then nick.
 * - If at most `maxAgents` qualify → `chosen` (all of them).
 * - If more qualify and the agent in place `maxAgents` scores more than the next one, the first
 *   `maxAgents` are `chosen` (a clear cut).
 * - TOO CLOSE TO CALL: more qualify and the cut at `maxAgents` falls inside a tie (place
 *   `maxAgents` and place `maxAgents + 1` score the same) → `unclear`; the options are the
 *   qualified agents.
 * Same input, same output: no randomness, no clock, ties ordered by nick.
 */
import { clip } from "../base/text.js";
import { ContributionKind } from "../base/vocab.js";
import { declaresSomething, type Candidate, type RoomView } from "./room-view.js";
import { humanise, stemsOf, wordsOf, type Word } from "./selection-words.js";
import type { SelectionOption, SelectionOutcome } from "./types.js";
import { nameTable } from "./name-table.js";

/** Limits of selectFromRoom; each is optional, and a limit below 1 counts as 1. */
export interface SelectionOptions {
  /** Nicks never to choose (e.g. agents that have left). */
  exclude?: string[];
  /** Most agents chosen without asking a person. Default 4. */
  maxAgents?: number;
  /** Most numbered options in a clarification question. Default 12. */
  maxOptions?: number;
}

/**
 * Words that stand for each MFR contribution kind. An agent that offers a kind is taken to
 * understand problems phrased in these words ("schedule" → it defines actions).
 */
export const KIND_KEYWORDS: Readonly<Record<string, readonly string[]>> = {
  [ContributionKind.EntityDiscovery]: ["entity", "object", "item", "person", "people", "participant", "resource", "place", "fact"],
  [ContributionKind.ConstraintIdentification]: [
    "constraint", "limit", "capacity", "rule", "restriction", "requirement", "deadline", "budget", "ensure", "avoid",
    "conflict", "interaction", "allowed", "maximum", "minimum", "within",
  ],
  [ContributionKind.ActionDefinition]: ["plan", "schedule", "action", "step", "sequence", "move", "route", "assign", "allocate", "order", "execute"],
  [ContributionKind.GoalIdentification]: ["goal", "objective", "aim", "target", "outcome", "achieve", "optimise", "optimize", "maximise", "minimise", "best"],
};

/** Where a matched word was found, in the order explanations name them. */
type Source = "name" | "capabilities" | "contribution kinds" | "description" | "supported modes";
const SOURCES: readonly Source[] = ["name", "capabilities", "contribution kinds", "description", "supported modes"];

interface Scored {
  entry: Candidate;
  /** Matched problem words, by the first source that contains them. */
  matches: Map<Source, Word[]>;
  score: number;
}

const DEFAULT_MAX_AGENTS = 4;
const DEFAULT_MAX_OPTIONS = 12;
/** Words named per explanation line; a line stays a line. */
const MAX_WORDS_EXPLAINED = 6;

/**
 * Chooses agents for `problem` among the room's candidates by the rules in this file's
 * header: `chosen`, `unclear` (a person picks from numbered options) or `everyone`.
 * Pure: same problem, room and options, same outcome; replay relies on it.
 */
export function selectFromRoom(problem: string, room: RoomView, opts: SelectionOptions = {}): SelectionOutcome {
  const maxAgents = Math.max(1, opts.maxAgents ?? DEFAULT_MAX_AGENTS);
  const maxOptions = Math.max(1, opts.maxOptions ?? DEFAULT_MAX_OPTIONS);
  const excluded = new Set((opts.exclude ?? []).map((n) => n.toLowerCase()));
  const eligible = room.candidates
    .filter((e) => !excluded.has(e.nick.toLowerCase()))
    .filter((e, i, all) => all.findIndex((o) => o.nick.toLowerCase() === e.nick.toLowerCase()) === i)
    .sort((a, b) => compareNicks(a.nick, b.nick));

  if (eligible.length === 0) return { kind: "everyone", agents: [], why: "no occupant of the room might be an agent" };

  const problemWords = distinctByStem(wordsOf(problem));
  const scored = eligible.map((entry) => score(entry, problemWords)).sort((a, b) => b.score - a.score || compareNicks(a.entry.nick, b.entry.nick));
  const best = scored[0]?.score ?? 0;

  if (best === 0) {
    if (!eligible.some(declaresSomething)) {
      return { kind: "everyone", agents: eligible.map((e) => e.nick), why: "none of the agents in the room says what it can do" };
    }
    return {
      kind: "unclear",
      options: numbered(scored.slice(0, maxOptions).map((s) => ({ agent: s.entry.nick, reason: `no declared capability matches; offers ${s.entry.offers}` }))),
      why: "no agent's declared capabilities match the problem",
    };
  }

  const qualified = scored.filter((s) => s.score >= Math.ceil(best / 2));
  if (qualified.length <= maxAgents || (qualified[maxAgents - 1]?.score ?? 0) > (qualified[maxAgents]?.score ?? 0)) {
    const chosen = qualified.slice(0, maxAgents);
    return {
      kind: "chosen",
      agents: chosen.map((s) => s.entry.nick),
      reasons: nameTable(chosen.map((s) => [s.entry.nick, explain(s)])),
    };
  }

  const tieScore = qualified[maxAgents]?.score ?? 0;
  const tied = qualified.filter((s) => s.score === tieScore).length;
  return {
    kind: "unclear",
    options: numbered(qualified.slice(0, maxOptions).map((s) => ({ agent: s.entry.nick, reason: explain(s) }))),
    why: `too close to call: ${tied} agents match equally well (${tieScore} word${tieScore === 1 ? "" : "s"} each) for the last of ${maxAgents} places`,
  };
}

/** Case-insensitive nick order, with the exact spelling as a tie-breaker so the order is total. */
export function compareNicks(a: string, b: string): number {
  const la = a.toLowerCase();
  const lb = b.toLowerCase();
  if (la !== lb) return la < lb ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function score(entry: Candidate, problemWords: Word[]): Scored {
  const stemsBySource = declaredStems(entry);
  const matches = new Map<Source, Word[]>();
  let total = 0;
  for (const word of problemWords) {
    const source = SOURCES.find((s) => stemsBySource.get(s)?.has(word.stem));
    if (!source) continue;
    matches.set(source, [...(matches.get(source) ?? []), word]);
    total++;
  }
  return { entry, matches, score: total };
}

function declaredStems(entry: Candidate): Map<Source, Set<string>> {
  const declared = entry.declared;
  const kindWords = declared.kinds.flatMap((k) => KIND_KEYWORDS[k] ?? []);
  return new Map<Source, Set<string>>([
    // "MfrSemantic" is written "mfr semantic" by people.
    ["name", stemsOf(humanise(entry.nick))],
    ["capabilities", stemsOf(declared.capabilities)],
    ["contribution kinds", stemsOf(kindWords.join(" "))],
    ["description", stemsOf(declared.description)],
    ["supported modes", stemsOf(declared.modes)],
  ]);
}

/** "matches 'plan', 'constraints' in its capabilities; 'schedule' in its contribution kinds". */
function explain(s: Scored): string {
  const parts: string[] = [];
  let named = 0;
  for (const source of SOURCES) {
    const words = s.matches.get(source);
    if (!words || named >= MAX_WORDS_EXPLAINED) continue;
    const shown = words.slice(0, MAX_WORDS_EXPLAINED - named);
    named += shown.length;
    parts.push(`${shown.map((w) => `'${w.text}'`).join(", ")} in its ${source}`);
  }
  const more = s.score - named;
  return clip(`matches ${parts.join("; ")}${more > 0 ? ` (and ${more} more)` : ""}`, 200);
}

function distinctByStem(words: Word[]): Word[] {
  const seen = new Set<string>();
  return words.filter((w) => !seen.has(w.stem) && (seen.add(w.stem), true));
}

function numbered(items: Array<{ agent: string; reason: string }>): SelectionOption[] {
  return items.map((item, i) => ({ number: i + 1, ...item }));
}
