/**
 * Replay equals live, checked: re-run a session's logged inputs through the core, render
 * what each step sends, and compare with the sent-record of what the running coordinator
 * really handed to the connection. Used by `restore` (to send what a crash swallowed) and
 * by `mfr-coordinator verify` and the tests (to prove nothing was sent twice or differently).
 *
 * What decides is compared strictly, wording as wording: a stanza whose bytes differ but
 * whose decisive digest (decisive-digest.ts) is the one recorded was worded otherwise by the
 * build that sent it, which is no mismatch. A record of a build that kept no decisive digest
 * is compared as far as it can be (which input, which place, which kind of stanza, how many,
 * in which order), and a difference in its content is counted as wording of an earlier build.
 */
import { replay } from "../session/replay.js";
import { emptySessions } from "../session/step.js";
import type { Sessions } from "../session/types.js";
import type { SentRecord, StoredEvent } from "../store/records.js";
import { comparableDecisive, decisiveDigest } from "./decisive-digest.js";
import { renderEffects, stanzaDigest, type Outgoing, type RenderContext } from "./outgoing.js";

/** A stanza replay says the step of `eventSeq` sends at `position`. */
export interface ExpectedSend {
  eventSeq: number;
  /** The instant of that step. */
  at: number;
  position: number;
  digest: string;
  outgoing: Outgoing;
}

export type SentMismatch =
  /** Replay sends it, the record has no such stanza: lost before it went out (or never recorded). */
  | { kind: "missing"; eventSeq: number; position: number; what: string }
  /**
   * Both have a stanza here, and replay diverged from live: what it decides differs
   * (`decisive`), or, for a record without a decisive digest, it is another kind of stanza
   * (`kind`: `recorded` is the kind sent live).
   */
  | { kind: "different"; eventSeq: number; position: number; what: string; recorded: string; by: "decisive" | "kind" }
  /** Recorded, but replay does not send it: live did something replay cannot explain. */
  | { kind: "unexpected"; eventSeq: number; position: number; what: string }
  /** Recorded more than once. */
  | { kind: "sent-twice"; eventSeq: number; position: number; what: string };

/** A stanza replay words otherwise than it was sent, deciding the same: no mismatch. */
export interface WordingDifference {
  eventSeq: number;
  position: number;
  what: string;
  /** The build that sent it; undefined: a build before build ids were recorded. */
  build: string | undefined;
  /** The record has a decisive digest to compare (false: only the kind of stanza could be compared). */
  decisiveCompared: boolean;
}

/** What comparing replay with the record found: the mismatches, and the stanzas that differ in wording only. */
export interface SentComparison {
  mismatches: SentMismatch[];
  wording: WordingDifference[];
}

/**
 * Steps logged inputs exactly as live stepped them (each with the `now` it was logged at)
 * and renders what each step sends. An input the core throws on is skipped and reported.
 */
export function replayWithSends(
  events: Iterable<StoredEvent>,
  ctx: RenderContext,
  onSkipped: (err: unknown, event: StoredEvent) => void = (err) => {
    throw err;
  },
): { state: Sessions; expected: ExpectedSend[]; applied: number } {
  const expected: ExpectedSend[] = [];
  const { state, applied } = replay(emptySessions(), events, onSkipped, (event, effects) =>
    renderEffects(event.input.sessionId, effects, event.at, ctx).outgoing.forEach((outgoing, position) =>
      expected.push({ eventSeq: event.seq, at: event.at, position, digest: stanzaDigest(outgoing.stanza), outgoing }),
    ),
  );
  return { state, expected, applied };
}

/**
 * Compares replay with the record. Events at or below `trackedAfter` predate the record and
 * are not compared. Where, what, how many and in which order are compared strictly; content
 * by the whole stanza's digest, and where that differs by the decisive digest, or, in a record
 * without one, by the kind of stanza: the same means a difference in wording only.
 */
export function compareSent(expected: readonly ExpectedSend[], recorded: readonly SentRecord[], trackedAfter: number): SentComparison {
  const key = (eventSeq: number, position: number) => `${eventSeq}:${position}`;
  const byKey = new Map<string, SentRecord>();
  const mismatches: SentMismatch[] = [];
  const wording: WordingDifference[] = [];
  for (const r of recorded) {
    const k = key(r.eventSeq, r.position);
    if (byKey.has(k)) mismatches.push({ kind: "sent-twice", eventSeq: r.eventSeq, position: r.position, what: r.what });
    else byKey.set(k, r);
  }
  const explained = new Set<string>();
  for (const e of expected) {
    if (e.eventSeq <= trackedAfter) continue;
    const k = key(e.eventSeq, e.position);
    const r = byKey.get(k);
    explained.add(k);
    if (!r) mismatches.push({ kind: "missing", eventSeq: e.eventSeq, position: e.position, what: e.outgoing.what });
    else if (r.digest !== e.digest) {
      const place = { eventSeq: e.eventSeq, position: e.position, what: e.outgoing.what };
      // Only stanzas that differ are digested again, so a store that replays as sent costs no more than before.
      const decisiveCompared = comparableDecisive(r.decisive);
      const same = decisiveCompared ? r.decisive === decisiveDigest(e.outgoing) : r.what === e.outgoing.what;
      if (same) wording.push({ ...place, build: r.build, decisiveCompared });
      else mismatches.push({ kind: "different", ...place, recorded: r.what, by: decisiveCompared ? "decisive" : "kind" });
    }
  }
  for (const [k, r] of byKey) {
    if (!explained.has(k)) mismatches.push({ kind: "unexpected", eventSeq: r.eventSeq, position: r.position, what: r.what });
  }
  return { mismatches, wording };
}

/**
 * The stanzas a crash swallowed: expected sends after the last one the record has. Sends
 * leave in order, so what a kill -9 loses is always a tail; anything earlier that is
 * missing was sent but not recorded, and sending it again would send it twice.
 */
export function unsentTail(expected: readonly ExpectedSend[], recorded: readonly SentRecord[], trackedAfter: number): ExpectedSend[] {
  const last = recorded.reduce<{ eventSeq: number; position: number } | undefined>(
    (latest, r) => (!latest || r.eventSeq > latest.eventSeq || (r.eventSeq === latest.eventSeq && r.position > latest.position) ? r : latest),
    undefined,
  );
  return expected.filter(
    (e) => e.eventSeq > trackedAfter && (!last || e.eventSeq > last.eventSeq || (e.eventSeq === last.eventSeq && e.position > last.position)),
  );
}

/** The parts of the store a whole-store check reads. */
export interface SentLog {
  sessionIds(): string[];
  eventsOf(sessionId: string): StoredEvent[];
  sentOf(sessionId: string): SentRecord[];
  sentTrackedAfter(): number;
}

/** What the check of one session found. */
export interface SessionCheck {
  sessionId: string;
  /** Stanzas replay sends that the record confirms, byte for byte. */
  matched: number;
  /** The unsent tail of a process that was killed: the next start sends it. */
  pending: number;
  /** Stanzas the record confirms but for their wording (the build that sent them worded them otherwise). */
  wording: WordingDifference[];
  mismatches: SentMismatch[];
}

/** Replays every session in the store and compares with what was sent live. */
export function verifyStore(log: SentLog, ctx: RenderContext): SessionCheck[] {
  const trackedAfter = log.sentTrackedAfter();
  return log.sessionIds().map((sessionId) => checkSession(sessionId, log.eventsOf(sessionId), log.sentOf(sessionId), trackedAfter, ctx));
}

/**
 * Replays one session's events and compares with its sent-record (events at or below
 * `trackedAfter` predate the record): what `verifyStore` does for each session, for a store
 * read one session at a time (the shared PostgreSQL store, read asynchronously).
 */
export function checkSession(sessionId: string, events: readonly StoredEvent[], recorded: readonly SentRecord[], trackedAfter: number, ctx: RenderContext): SessionCheck {
  const { expected } = replayWithSends(events, ctx);
  const pending = new Set(unsentTail(expected, recorded, trackedAfter).map((e) => `${e.eventSeq}:${e.position}`));
  const compared = compareSent(expected, recorded, trackedAfter);
  const mismatches = compared.mismatches.filter((m) => !(m.kind === "missing" && pending.has(`${m.eventSeq}:${m.position}`)));
  const replayed = expected.filter((e) => e.eventSeq > trackedAfter).length;
  const unmatched = pending.size + compared.wording.length + mismatches.filter((m) => m.kind === "missing" || m.kind === "different").length;
  return { sessionId, matched: replayed - unmatched, pending: pending.size, wording: compared.wording, mismatches };
}
