/**
 * A small seeded pseudo-random generator (mulberry32), so that generated problems and mutated
 * plans are the same on every run and every machine. No dependency, not for cryptography.
 */
export type Random = () => number;

/** A generator of floats in [0, 1) determined by `seed`. */
export function seededRandom(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An integer in [0, n). */
export function randomInt(random: Random, n: number): number {
  return Math.floor(random() * n);
}

/** One item of a non-empty list. */
export function pick<T>(random: Random, items: readonly T[]): T {
  if (items.length === 0) throw new Error("pick from an empty list");
  return items[randomInt(random, items.length)] as T;
}

/** A shuffled copy (Fisher-Yates). */
export function shuffled<T>(random: Random, items: readonly T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i -= 1) {
    const j = randomInt(random, i + 1);
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
}
