/**
 * `mfr-coordinator verify`: the replay check over a whole store, in words an operator reads.
 */
import type { Config } from "../config/schema.js";
import { renderContextOf } from "./outgoing.js";
import { verifyStore, type SentLog, type SentMismatch } from "./sent-check.js";

const MISMATCH_WORDS: Record<SentMismatch["kind"], string> = {
  missing: "replay sends it, but it was never recorded as sent",
  different: "sent live with different content than replay produces",
  unexpected: "recorded as sent, but replay does not send it",
  "sent-twice": "recorded as sent twice",
};

/** Prints one line per session with a finding and a closing tally; returns the exit code (0 = all match). */
export function printVerification(log: SentLog, config: Config, print: (line: string) => void): number {
  // The same rooms and limit the running coordinator renders for, so replay builds the same stanzas.
  const checks = verifyStore(log, renderContextOf(config));
  let matched = 0;
  let pending = 0;
  let mismatches = 0;
  for (const check of checks) {
    matched += check.matched;
    pending += check.pending;
    mismatches += check.mismatches.length;
    for (const m of check.mismatches) print(`${check.sessionId}: input ${m.eventSeq}, stanza ${m.position + 1} (${m.what}): ${MISMATCH_WORDS[m.kind]}`);
    if (check.pending > 0) print(`${check.sessionId}: ${check.pending} stanza(s) not yet sent; the next start sends them`);
  }
  print(`verify: ${checks.length} sessions, ${matched} stanzas match, ${pending} pending, ${mismatches} mismatches`);
  return mismatches === 0 ? 0 : 1;
}
