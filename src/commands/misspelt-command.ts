/**
 * What a person probably meant when a line is not quite a command. In 1:1 chat, and in a line
 * addressed to the coordinator, every line is for us, so anything unknown is answered with the
 * nearest command word. In the room, most lines are people talking to each other: a line is
 * taken for a misspelt command only when its first word is unmistakably one (the rule below),
 * so that the coordinator answers `mfr-stauts` and `hepl` but never joins a conversation.
 */
import { editDistance } from "../base/spelling.js";
import { COMMAND_WORDS } from "./command-words.js";

/** Not a command, but said as one: the first word as typed (shortened) and what it most resembles. */
export interface UnknownCommand {
  word: string;
  /** The command word it most resembles, if any is close. */
  suggestion: string | undefined;
}

/** Longest first word we quote back; longer is no command word misspelt. */
const MAX_WORD = 30;

const PREFIX = "mfr-";
const PREFIXED_WORDS = COMMAND_WORDS.filter((w) => w.startsWith(PREFIX));
/** Command words that are plain English words (`start`, `help`, `use`…): people also say them to each other. */
const PLAIN_WORDS = COMMAND_WORDS.filter((w) => !w.startsWith(PREFIX));

/**
 * English words one edit from a plain command word (taken from a dictionary's word list, with
 * every one-edit neighbour of start, debate, agents, approve, reject, and the swaps of help and
 * use): a line starting with one of them is conversation, never a misspelt command.
 */
export const ENGLISH_NEIGHBOURS: ReadonlySet<string> = new Set([
  ...["smart", "star", "stare", "stark", "starr", "stars", "starts", "stat", "stuart", "tart"],
  ...["debase", "debated", "debater", "debates", "rebate"],
  ...["agent", "gents"],
  ...["approved", "approves"],
  ...["deject", "eject", "rejects"],
  "sue",
]);

/**
 * How many edits a typed word may be from a command word to be taken for it: two for command
 * words of five letters or more, one for shorter ones (one edit from `help` is already `held`).
 */
function tolerance(commandWord: string): number {
  return commandWord.length >= 5 ? 2 : 1;
}

/**
 * The command word nearest to `word` within `tolerance`, for a line that is certainly meant for
 * us (1:1 chat, or addressed). A bare tail means its `mfr-` word (`status` → `mfr-status`), and
 * a typo of a tail too (`stauts` → `mfr-status`). The nearest wins; on a tie, the order of `help`.
 */
export function suggestCommand(word: string): string | undefined {
  const typed = word.toLowerCase();
  let best: { word: string; distance: number } | undefined;
  for (const candidate of COMMAND_WORDS) {
    const forms = candidate.startsWith(PREFIX) ? [candidate, candidate.slice(PREFIX.length)] : [candidate];
    for (const form of forms) {
      const distance = editDistance(typed, form);
      if (distance <= tolerance(form) && (!best || distance < best.distance)) best = { word: candidate, distance };
    }
  }
  return best?.word;
}

/**
 * A room line that nobody addressed to us, taken for a misspelt command; undefined for every
 * other line. The rule, on the line's first word only (lower case, a trailing `.,;:!?` dropped):
 *
 * - It must look like a command word: letters, digits, `-` and `_`, at most 30 characters. A
 *   line that only mentions a command later (`I think mfr-status is broken`) is conversation.
 * - A real command word is not misspelt (the parser has had its say about the line).
 * - `mfr-` and a word is always a command attempt: nobody writes that to a person. It gets the
 *   nearest `mfr-` command within two edits, or no suggestion (`mfr-frobnicate`).
 * - Within two edits of an `mfr-` command word (`mfrstatus`, `mfr_lsit`): no English word is
 *   that near a hyphenated word beginning with `mfr`.
 * - One edit from a plain command word of five letters or more (`strat`, `agnets`, `aprove`),
 *   unless the result is itself an English word (`stars`, `agent`, `approved`: see
 *   ENGLISH_NEIGHBOURS). Two edits is not enough: 150 English words are two edits from `start`.
 * - For the short plain words `help` and `use`, only a swap of two neighbouring letters
 *   (`hepl`, `hlep`, `ues`): every other edit of them is mostly English (`held`, `hello` is
 *   two, `us`, `user`) or an abbreviation (`usa`, `hep`).
 *
 * Whether the sender is an agent, and the flood guard, are the shell's to judge.
 */
export function misspeltCommand(line: string): UnknownCommand | undefined {
  const first = line.trim().split(/\s+/)[0] ?? "";
  const word = first.replace(/[.,;:!?]+$/, "");
  const typed = word.toLowerCase();
  if (typed === "" || typed.length > MAX_WORD || !/^[a-z0-9][a-z0-9_-]*$/.test(typed)) return undefined;
  if (COMMAND_WORDS.includes(typed)) return undefined;
  const prefixed = nearest(typed, PREFIXED_WORDS, (w) => tolerance(w));
  if (prefixed !== undefined || /^mfr-[a-z]/.test(typed)) return { word, suggestion: prefixed };
  if (ENGLISH_NEIGHBOURS.has(typed)) return undefined;
  const plain = nearest(typed, PLAIN_WORDS, (w) => (w.length >= 5 ? 1 : 0));
  if (plain !== undefined) return { word, suggestion: plain };
  const swapped = PLAIN_WORDS.find((w) => w.length < 5 && isNeighbourSwap(typed, w));
  return swapped !== undefined ? { word, suggestion: swapped } : undefined;
}

function nearest(typed: string, candidates: readonly string[], allowed: (candidate: string) => number): string | undefined {
  let best: { word: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(typed, candidate);
    if (distance <= allowed(candidate) && (!best || distance < best.distance)) best = { word: candidate, distance };
  }
  return best?.word;
}

/** `typed` is `word` with two neighbouring, different letters swapped. */
function isNeighbourSwap(typed: string, word: string): boolean {
  if (typed.length !== word.length) return false;
  const differ = [...typed].flatMap((ch, i) => (ch === word[i] ? [] : [i]));
  const [i, j] = differ;
  return differ.length === 2 && i !== undefined && j === i + 1 && typed[i] === word[j] && typed[j] === word[i];
}
