/**
 * Mapping the loose names of a Chair's consensus onto the agents in the room (docs/protocol.md,
 * "Debate with a Chair", step 3). Existing Chairs lower-case names and shorten them
 * (`MFR-Semantic` → `semantic`), and add trailing words ("for this problem").
 *
 * The rule, tried for each name in turn, first against the agents in the room, then against
 * known agents that are absent (so the room can be told "not in the room"):
 * 1. SAME NAME: equal to a nick once case and punctuation are ignored
 *    ("mfr semantic" = "MFR-Semantic" = "MfrSemantic").
 * 2. NICK AND MORE: the name starts with a nick followed by other words ("prolog agent").
 * 3. DISTINCTIVE PART: the name is one part, or a run of parts, of exactly one nick; a nick's
 *    parts are split at punctuation, lower-to-upper case changes and letter/digit changes
 *    (`MfrSemantic` → mfr, semantic). For a nick written in one piece ("mfrsemantic") a name
 *    of at least four letters that begins or ends it counts too. A name that is part of
 *    several nicks is ambiguous and matches nobody; it is reported with the nicks it could be.
 * 4. Otherwise the name loses its last word and is tried again ("semantic reasoner" →
 *    "semantic"), down to one word.
 * Same names and room, same mapping: no clock, no randomness; ties go to the longest nick.
 */
import type { RoomView } from "./room-view.js";

/** What one name of a consensus became. */
export type NameMapping =
  | { name: string; agent: string }
  /** A known agent, but not in the room now. */
  | { name: string; absent: string }
  /** Part of several nicks: could be any of them. */
  | { name: string; ambiguous: string[] }
  | { name: string; nobody: true };

/** Names considered per consensus; a Chair names a handful of tools. */
const MAX_NAMES = 20;
const MIN_EDGE_MATCH = 4;

/** Maps each name, in order; the same agent named twice is listed once. */
export function mapNames(names: readonly string[], room: RoomView): NameMapping[] {
  const present = room.candidates.map((c) => c.nick);
  const out: NameMapping[] = [];
  for (const name of names.slice(0, MAX_NAMES)) {
    const shown = name.trim();
    if (key(shown) === "" || out.some((m) => key(m.name) === key(shown))) continue;
    const here = resolve(shown, present);
    if (here.kind === "one") out.push({ name: shown, agent: here.nick });
    else {
      const away = here.kind === "none" ? resolve(shown, room.absent) : here;
      if (away.kind === "one") out.push({ name: shown, absent: away.nick });
      else if (here.kind === "several") out.push({ name: shown, ambiguous: here.nicks });
      else if (away.kind === "several") out.push({ name: shown, ambiguous: away.nicks });
      else out.push({ name: shown, nobody: true });
    }
  }
  return out;
}

/** The agents a mapping chose, in the order they were named, each once. */
export function mappedAgents(mapping: readonly NameMapping[]): string[] {
  const agents: string[] = [];
  for (const m of mapping) if ("agent" in m && !agents.some((a) => a.toLowerCase() === m.agent.toLowerCase())) agents.push(m.agent);
  return agents;
}

type Resolution = { kind: "one"; nick: string } | { kind: "several"; nicks: string[] } | { kind: "none" };

function resolve(name: string, nicks: readonly string[]): Resolution {
  const words = name.split(/\s+/).filter((w) => w !== "");
  let ambiguous: Resolution | undefined;
  for (let n = words.length; n >= 1; n--) {
    const found = resolveWhole(words.slice(0, n).join(" "), nicks);
    if (found.kind === "one") return found;
    if (found.kind === "several") ambiguous ??= found;
  }
  return ambiguous ?? { kind: "none" };
}

function resolveWhole(name: string, nicks: readonly string[]): Resolution {
  const k = key(name);
  const byLength = [...nicks].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  const same = byLength.find((nick) => key(nick) === k);
  if (same) return { kind: "one", nick: same };
  const lower = name.toLowerCase();
  const leading = byLength.find((nick) => {
    const n = nick.toLowerCase();
    return n !== "" && lower.startsWith(n) && !/^[\p{L}\p{N}]/u.test(lower.slice(n.length));
  });
  if (leading) return { kind: "one", nick: leading };
  const parts = byLength.filter((nick) => isDistinctivePart(k, nick));
  if (parts.length === 1) return { kind: "one", nick: parts[0] as string };
  if (parts.length > 1) return { kind: "several", nicks: [...parts].sort() };
  return { kind: "none" };
}

function isDistinctivePart(nameKey: string, nick: string): boolean {
  if (nameKey === "") return false;
  const parts = partsOf(nick);
  for (let i = 0; i < parts.length; i++) {
    let run = "";
    for (let j = i; j < parts.length; j++) {
      run += parts[j];
      if (run === nameKey) return true;
    }
  }
  const whole = key(nick);
  return parts.length === 1 && nameKey.length >= MIN_EDGE_MATCH && nameKey !== whole && (whole.startsWith(nameKey) || whole.endsWith(nameKey));
}

/** `MfrSemantic` → [mfr, semantic]; `MFR-Semantic2` → [mfr, semantic, 2]. */
function partsOf(nick: string): string[] {
  return nick
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, "$1 $2")
    .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, "$1 $2")
    .replace(/(\p{L})(\p{N})/gu, "$1 $2")
    .replace(/(\p{N})(\p{L})/gu, "$1 $2")
    .split(/[^\p{L}\p{N}]+/u)
    .filter((p) => p !== "")
    .map((p) => p.toLowerCase());
}

/** Case and punctuation ignored: what two spellings of one name share. */
function key(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");
}
