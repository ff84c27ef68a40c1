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
 * Room lines for people (`say`) are all wording, whether a build says them included.
 */
import { replay } from "../session/replay.js";
import { emptySessions } from "../session/step.js";
import type { Sessions } from "../session/step-io.js";
import type { SentRecord, StoredEvent } from "./journal-records.js";
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

/** How a replayed stanza and its sent-record differ. */
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

/**
 * A stanza replay words otherwise than it was sent, deciding the same, or a room line for
 * people that only one of them says: no mismatch.
 */
export interface WordingDifference {
  eventSeq: number;
  position: number;
  what: string;
  /** The build that sent it (or the step's, for a line replay alone says); undefined: a build before build ids were recorded. */
  build: string | undefined;
  /** The record has a decisive digest to compare (false: only the kind of stanza could be compared). */
  decisiveCompared: boolean;
  /** A room line said by one side only: `live only` (the build that sent it said it, this one does not), `by replay only`. */
  said?: "live only" | "by replay only";
}

/** What comparing replay with the record found: how many stanzas are the same bytes, the mismatches, and the differences in wording only. */
export interface SentComparison {
  matched: number;
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
 * Whether a stanza is a line for the people in a room (`say primary`, `say log`): all its text
 * is wording, and so is whether a build says it at all (a build that moved a summary line
 * into the SessionComplete's body says one line less), so its presence is not compared strictly.
 */
export function isRoomLine(what: string): boolean {
  return what.startsWith("say ");
}

/**
 * Compares replay with the record, step by step (events at or below `trackedAfter` predate
 * the record and are not compared). Within a step, the stanzas that decide something
 * (protocol messages, answers to one participant) are paired in order with the recorded ones
 * and compared strictly: one missing, unexpected or recorded twice is a mismatch; content by
 * the whole stanza's digest, and where that differs by the decisive digest, or, in a record
 * without one, by the kind of stanza: the same means a difference in wording only. Room lines
 * for people are paired in order among themselves, and one said by live or by replay alone is
 * a difference in wording too.
 */
export function compareSent(expected: readonly ExpectedSend[], recorded: readonly SentRecord[], trackedAfter: number): SentComparison {
  const mismatches: SentMismatch[] = [];
  const wording: WordingDifference[] = [];
  let matched = 0;
  const seen = new Set<string>();
  const recordedBy = new Map<number, SentRecord[]>();
  for (const r of recorded) {
    const k = `${r.eventSeq}:${r.position}`;
    if (seen.has(k)) {
      mismatches.push({ kind: "sent-twice", eventSeq: r.eventSeq, position: r.position, what: r.what });
      continue;
    }
    seen.add(k);
    listIn(recordedBy, r.eventSeq).push(r);
  }
  const expectedBy = new Map<number, ExpectedSend[]>();
  for (const e of expected) if (e.eventSeq > trackedAfter) listIn(expectedBy, e.eventSeq).push(e);
  // The build a line replay alone says is set against: the step's own records', else the session's latest before it.
  let latestBuild: string | undefined;
  for (const eventSeq of [...new Set([...expectedBy.keys(), ...recordedBy.keys()])].sort((a, b) => a - b)) {
    const replayed = expectedBy.get(eventSeq) ?? [];
    const sent = [...(recordedBy.get(eventSeq) ?? [])].sort((a, b) => a.position - b.position);
    const stepBuild = sent.find((r) => r.build !== undefined)?.build ?? (sent.length > 0 ? undefined : latestBuild);
    latestBuild = sent.length > 0 ? sent[sent.length - 1]!.build : latestBuild;
    for (const lines of [false, true]) {
      const e = replayed.filter((x) => isRoomLine(x.outgoing.what) === lines);
      const r = sent.filter((x) => isRoomLine(x.what) === lines);
      for (let i = 0; i < Math.max(e.length, r.length); i++) {
        const [ei, ri] = [e[i], r[i]];
        if (ei && ri) {
          const found = compareOne(ei, ri);
          if (found === "same") matched += 1;
          else if (found.kind === "wording") wording.push(found.difference);
          else mismatches.push(found.mismatch);
        } else if (ei) {
          const place = { eventSeq, position: ei.position, what: ei.outgoing.what };
          if (lines) wording.push({ ...place, build: stepBuild, decisiveCompared: false, said: "by replay only" });
          else mismatches.push({ kind: "missing", ...place });
        } else if (ri) {
          const place = { eventSeq, position: ri.position, what: ri.what };
          if (lines) wording.push({ ...place, build: ri.build, decisiveCompared: false, said: "live only" });
          else mismatches.push({ kind: "unexpected", ...place });
        }
      }
    }
  }
  return { matched, mismatches, wording };
}

/** The list kept under `key`, made empty the first time. */
function listIn<T>(map: Map<number, T[]>, key: number): T[] {
  let list = map.get(key);
  if (!list) map.set(key, (list = []));
  return list;
}

/** One replayed stanza against the one recorded in its place: the same bytes, the same decisions in other words, or another stanza. */
function compareOne(e: ExpectedSend, r: SentRecord): "same" | { kind: "wording"; difference: WordingDifference } | { kind: "mismatch"; mismatch: SentMismatch } {
  if (r.digest === e.digest) return "same";
  const place = { eventSeq: e.eventSeq, position: e.position, what: e.outgoing.what };
  // Only stanzas that differ are digested again, so a store that replays as sent costs no more than before.
  const decisiveCompared = comparableDecisive(r.decisive);
  const same = decisiveCompared ? r.decisive === decisiveDigest(e.outgoing) : r.what === e.outgoing.what;
  if (same) return { kind: "wording", difference: { ...place, build: r.build, decisiveCompared } };
  return { kind: "mismatch", mismatch: { kind: "different", ...place, recorded: r.what, by: decisiveCompared ? "decisive" : "kind" } };
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
  // What replay sends past the last record is the unsent tail of a killed process, not a finding.
  const inTail = (x: { eventSeq: number; position: number }) => pending.has(`${x.eventSeq}:${x.position}`);
  const mismatches = compared.mismatches.filter((m) => !(m.kind === "missing" && inTail(m)));
  const wording = compared.wording.filter((w) => !(w.said === "by replay only" && inTail(w)));
  return { sessionId, matched: compared.matched, pending: pending.size, wording, mismatches };
}
