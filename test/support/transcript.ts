/**
 * The room as a person sees it, from the demo's printed transcript (src/programs/demo/room-transcript.ts),
 * made comparable from run to run: the time column dropped, the session id and the durations
 * that measure the run (how long the session or a search took, how long ago it started)
 * masked, no-break spaces read as spaces. The coordinator's lines must come in the same order;
 * between two of them, the agents' lines may come in any order (they answer concurrently).
 */

/** The transcript lines between the demo's markers, masked (see the module comment). */
export function maskedTranscript(text: string): string[] {
  const start = text.indexOf("--- room transcript");
  const end = text.indexOf("--- end of transcript");
  const block = start >= 0 && end > start ? text.slice(text.indexOf("\n", start) + 1, end) : text;
  const id = /Session (\S+) started by/.exec(block)?.[1];
  return block
    .replace(/\u00a0/g, " ")
    .split("\n")
    .map((line) => line.replace(/^\+\s*\d+\.\d+s {2}/, "").replace(/^ {22}/, "  ").replace(/\s+$/, ""))
    .filter((line) => line !== "")
    .map((line) => (id ? line.split(id).join("<id>") : line))
    .map((line) => line.replace(/(after|in) \d+(\.\d+)? (ms|s|min)( \d+ s)?/g, "$1 <t>").replace(/\d+(\.\d+)? (ms|s|min)( \d+ s)? ago/g, "<t> ago"));
}

/** Who said a transcript line ("" for a continuation line of a message on several lines). */
function speaker(line: string): string {
  return line.startsWith("  ") ? "" : (line.split(/\s+/)[0] ?? "");
}

/**
 * The differences between two masked transcripts, as lines a person can read; none when they
 * match: the same coordinator lines in the same order, and between them the same agents' lines.
 */
export function transcriptDifferences(actual: readonly string[], expected: readonly string[]): string[] {
  const groups = (lines: readonly string[]) => {
    const out: Array<{ coordinator: string[]; others: string[] }> = [{ coordinator: [], others: [] }];
    let current = out[0]!;
    let lastSpeaker = "";
    for (const line of lines) {
      const who = speaker(line) || lastSpeaker;
      lastSpeaker = who;
      if (who === "Coordinator") {
        if (speaker(line) === "Coordinator") out.push((current = { coordinator: [], others: [] }));
        current.coordinator.push(line);
      } else {
        current.others.push(line);
      }
    }
    return out.map((g) => ({ coordinator: g.coordinator.join("\n"), others: [...g.others].sort().join("\n") }));
  };
  const [a, e] = [groups(actual), groups(expected)];
  const differences: string[] = [];
  for (let i = 0; i < Math.max(a.length, e.length); i++) {
    const [x, y] = [a[i], e[i]];
    if (x?.coordinator !== y?.coordinator) differences.push(`coordinator line ${i}:\n  expected: ${y?.coordinator ?? "(none)"}\n  actual:   ${x?.coordinator ?? "(none)"}`);
    if (x?.others !== y?.others) differences.push(`agents' lines before coordinator line ${i + 1}:\n  expected: ${y?.others ?? "(none)"}\n  actual:   ${x?.others ?? "(none)"}`);
  }
  return differences;
}
