/** Suggesting the word someone probably meant: for typos in profiles and in commands. */

/** The candidate closest to `word` (case-insensitive), if it is at most `maxDistance` edits away. */
export function nearestWord(word: string, candidates: readonly string[], maxDistance = 2): string | undefined {
  let best: { word: string; distance: number } | undefined;
  for (const c of candidates) {
    const d = editDistance(word.toLowerCase(), c.toLowerCase());
    if (d <= maxDistance && (!best || d < best.distance)) best = { word: c, distance: d };
  }
  return best?.word;
}

/**
 * Damerau-Levenshtein distance in its "optimal string alignment" form: an insertion, a
 * deletion, a substitution or a swap of two neighbouring characters each count as one edit.
 * The swap matters because it is the commonest typo (`hepl`, `mfr-stauts`), which plain
 * Levenshtein counts as two. Three rows at a time.
 */
export function editDistance(a: string, b: string): number {
  let beforePrevious: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, (beforePrevious[j - 2] as number) + 1);
      current.push(d);
    }
    beforePrevious = previous;
    previous = current;
  }
  return previous[b.length] as number;
}
