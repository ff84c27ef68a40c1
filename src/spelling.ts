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

/** Levenshtein distance, one row at a time. */
export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0] as number;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j] as number;
      row[j] = Math.min(above + 1, (row[j - 1] as number) + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length] as number;
}
