/**
 * `mfr-coordinator verify`: the replay check over a whole store, in words an operator reads.
 * The SQLite store is read as one SentLog; the shared PostgreSQL store room unit by room
 * unit and session by session (a RoomsSentLog, read asynchronously), so a large database is
 * never held in memory at once, each unit replayed with the rooms its coordinator renders
 * for. Both print the same lines for the same sessions.
 *
 * A mismatch is a line of its own and makes the exit code 1. Stanzas that differ in wording
 * only (the build that sent them worded them otherwise, see sent-check.ts) are one line per
 * session naming the builds, and each its own line with `verbose`; they never fail the check.
 */
import { runningBuildId } from "../base/build-info.js";
import type { Config } from "../config/schema.js";
import type { BuildCount, SentRecord, StoredEvent } from "../host/journal-records.js";
import { renderContextOf, type RenderContext } from "../host/outgoing.js";
import { checkSession, verifyStore, type SentLog, type SentMismatch, type SessionCheck, type WordingDifference } from "../host/sent-check.js";

const MISMATCH_WORDS: Record<Exclude<SentMismatch["kind"], "different">, string> = {
  missing: "replay sends it, but it was never recorded as sent",
  unexpected: "recorded as sent, but replay does not send it",
  "sent-twice": "recorded as sent twice",
};

/** How a mismatch reads, after the session, the input and the stanza. */
function mismatchWords(m: SentMismatch): string {
  if (m.kind !== "different") return MISMATCH_WORDS[m.kind];
  return m.by === "decisive" ? "sent live deciding otherwise than replay (not only its wording differs)" : `sent live as ${m.recorded}, but replay sends ${m.what}`;
}

/** How one difference in wording reads, after the session, the input and the stanza. */
function wordingWords(w: WordingDifference): string {
  if (w.said === "live only") return `a room line ${builtBy(w.build)} said and this build does not (wording only)`;
  if (w.said === "by replay only") return `a room line this build says and ${builtBy(w.build)} did not (wording only)`;
  const how = w.decisiveCompared ? "what it decides is the same" : "the same kind of stanza; an earlier build kept nothing more to compare";
  return `differs in wording only (${how}), sent by ${builtBy(w.build)}`;
}

/** Names a build that sent a record: its id, or what is known of one that kept none. */
export function builtBy(build: string | undefined): string {
  return build ?? "an earlier build (before build ids were recorded)";
}

/** What verify is asked to print beyond the findings. */
export interface VerifyOptions {
  /** Each stanza that differs in wording only, and the builds that logged each session's inputs. */
  verbose?: boolean;
  /** The build replaying (default: this one's, build-info.ts). */
  replayedBy?: string;
}

/** The builds that logged a session's inputs, where the store can say (both stores can). */
type InputBuilds = (sessionId: string) => BuildCount[] | Promise<BuildCount[]>;

/** One room's journal as verify reads it, asynchronously (PgRoomReader is one). */
export interface AsyncSentLog {
  sessionIds(): Promise<string[]>;
  eventsOf(sessionId: string): Promise<StoredEvent[]>;
  sentOf(sessionId: string): Promise<SentRecord[]>;
  sentTrackedAfter(): Promise<number>;
  inputBuildsOf?(sessionId: string): Promise<BuildCount[]>;
}

/** A store of several room units, each with a journal of its own (PgStoreReader is one). */
export interface RoomsSentLog {
  rooms(): Promise<string[]>;
  room(room: string): AsyncSentLog;
}

/** Prints one line per session with a finding and a closing tally; returns the exit code (0 = no mismatch). */
export function printVerification(log: SentLog & { inputBuildsOf?(sessionId: string): BuildCount[] }, config: Config, print: (line: string) => void, options: VerifyOptions = {}): number {
  // The same rooms and limit the running coordinator renders for, so replay builds the same stanzas.
  const tally = new VerificationTally(print, options);
  for (const check of verifyStore(log, renderContextOf(config))) tally.add(check, options.verbose && log.inputBuildsOf ? log.inputBuildsOf(check.sessionId) : undefined);
  return tally.close();
}

/**
 * The same report over every room unit of a store of several, one session read at a time;
 * `contextOf` gives the rooms and limit a unit's coordinator renders for (units differ in
 * their rooms), so replay builds the stanzas that unit sent.
 */
export async function printRoomsVerification(log: RoomsSentLog, contextOf: (room: string) => RenderContext, print: (line: string) => void, options: VerifyOptions = {}): Promise<number> {
  const tally = new VerificationTally(print, options);
  for (const room of await log.rooms()) {
    const ctx = contextOf(room);
    const journal = log.room(room);
    const trackedAfter = await journal.sentTrackedAfter();
    const inputBuilds: InputBuilds | undefined = options.verbose && journal.inputBuildsOf ? (id) => journal.inputBuildsOf!(id) : undefined;
    for (const sessionId of await journal.sessionIds()) {
      const [events, recorded, builds] = await Promise.all([journal.eventsOf(sessionId), journal.sentOf(sessionId), inputBuilds?.(sessionId)]);
      tally.add(checkSession(sessionId, events, recorded, trackedAfter, ctx), builds);
    }
  }
  return tally.close();
}

/** Prints each session's findings as it comes, and adds them up for the closing line. */
class VerificationTally {
  private sessions = 0;
  private matched = 0;
  private wording = 0;
  private pending = 0;
  private mismatches = 0;
  private readonly verbose: boolean;
  private readonly replayedBy: string;

  constructor(
    private readonly print: (line: string) => void,
    options: VerifyOptions,
  ) {
    this.verbose = options.verbose ?? false;
    this.replayedBy = options.replayedBy ?? runningBuildId();
  }

  add(check: SessionCheck, inputBuilds?: BuildCount[]): void {
    const id = check.sessionId;
    this.sessions += 1;
    this.matched += check.matched;
    this.wording += check.wording.length;
    this.pending += check.pending;
    this.mismatches += check.mismatches.length;
    if (inputBuilds && inputBuilds.length > 0) this.print(`${id}: ${inputBuilds.map((b) => `${b.inputs} input(s) logged by ${builtBy(b.build)}`).join("; ")}`);
    for (const m of check.mismatches) this.print(`${id}: input ${m.eventSeq}, stanza ${m.position + 1} (${m.what}): ${mismatchWords(m)}`);
    if (check.wording.length > 0) this.print(`${id}: worded by ${buildsOf(check.wording).map(builtBy).join(" and ")}, replayed by ${this.replayedBy}: ${check.wording.length} message(s) differ in wording only`);
    if (this.verbose) for (const w of check.wording) this.print(`${id}: input ${w.eventSeq}, stanza ${w.position + 1} (${w.what}): ${wordingWords(w)}`);
    if (check.pending > 0) this.print(`${id}: ${check.pending} stanza(s) not yet sent; the next start sends them`);
  }

  /** Prints the tally; the exit code (0 = no mismatch: wording differences are not one). */
  close(): number {
    this.print(
      `verify: ${this.sessions} sessions, ${this.matched} stanzas match, ${this.wording} differ in wording only, ${this.pending} pending, ${this.mismatches} mismatches (replayed by ${this.replayedBy})`,
    );
    return this.mismatches === 0 ? 0 : 1;
  }
}

/** The builds that sent these, each once, in the order first met (an earlier build's undefined last). */
function buildsOf(differences: readonly WordingDifference[]): Array<string | undefined> {
  const builds = [...new Set(differences.map((w) => w.build))];
  return [...builds.filter((b) => b !== undefined), ...builds.filter((b) => b === undefined)];
}
