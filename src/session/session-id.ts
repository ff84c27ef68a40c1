/**
 * Session ids people can read aloud and type: `amber-fox-42`. About 2,500 word pairs times
 * 90 numbers; collisions with live or archived ids are retried by the caller's `taken`.
 */
const ADJECTIVES = [
  "amber", "azure", "bold", "brave", "brisk", "calm", "clear", "coral", "crisp", "deep",
  "eager", "early", "fair", "fast", "fine", "fresh", "gentle", "glad", "golden", "grand",
  "green", "happy", "hardy", "humble", "ivory", "jade", "keen", "kind", "late", "lively",
  "lucid", "lunar", "merry", "mild", "misty", "noble", "olive", "plain", "proud", "quick",
  "quiet", "rapid", "royal", "ruby", "sharp", "silver", "solar", "steady", "swift", "vivid",
] as const;
const NOUNS = [
  "badger", "bear", "bee", "crane", "crow", "deer", "dove", "eagle", "elk", "falcon",
  "finch", "fox", "frog", "gull", "hare", "hawk", "heron", "horse", "ibis", "jay",
  "koala", "lark", "lion", "lynx", "mole", "moth", "newt", "otter", "owl", "panda",
  "pike", "puma", "quail", "raven", "robin", "seal", "shrew", "snail", "sparrow", "stork",
  "swan", "tiger", "toad", "trout", "vole", "wasp", "whale", "wolf", "wren", "yak",
] as const;

function pick<T>(list: readonly T[], random: () => number): T {
  return list[Math.floor(random() * list.length) % list.length] as T;
}

/**
 * A fresh readable id (`amber-fox-42`) that `taken` does not reject. `random` returns values
 * in [0, 1) like Math.random (the host's default); a fixed one gives fixed ids. After 50 taken
 * tries a longer base-36 suffix is used, so it never gives up.
 */
export function newSessionId(random: () => number, taken: (id: string) => boolean): string {
  for (let attempt = 0; attempt < 50; attempt++) {
    const id = `${pick(ADJECTIVES, random)}-${pick(NOUNS, random)}-${10 + Math.floor(random() * 90)}`;
    if (!taken(id)) return id;
  }
  // Practically unreachable; a longer random suffix keeps ids unique regardless.
  for (;;) {
    const id = `${pick(ADJECTIVES, random)}-${pick(NOUNS, random)}-${Math.floor(random() * 1e9).toString(36)}`;
    if (!taken(id)) return id;
  }
}
