/**
 * The durable input log of SessionStore, on one open database (the events table): every
 * input appended in order, the live ones (of sessions not archived) replayed at start, and
 * each event read back as a checked input of its session. The rules kept here: an input is
 * in the WAL when `append` returns, together with whatever the caller writes in the same
 * transaction (the room message it came from); an input is live if it starts a session or
 * belongs to one that has live events. Writes are the caller's to guard.
 */
import type BetterSqlite3 from "better-sqlite3";
import type { SessionId } from "../session/types.js";
import type { Input } from "../session/step-io.js";
import type { BuildCount, StoredEvent } from "../host/journal-records.js";
import { corrupted } from "./errors.js";
import type { ReadEventInput } from "./blob-json.js";
import type { StoredValues } from "./stored-values.js";

/** An events row as read. */
interface EventRow {
  seq: number;
  session_id: string;
  at: number;
  input: string;
}

/** The events table of one store (see the header): appends, replay, and reads by session and by sequence number. */
export class EventLog {
  private readonly statements: ReturnType<typeof prepare>;
  /** An input and what goes with it, in one transaction. */
  private readonly inOneTransaction: (run: () => number) => number;

  constructor(
    db: BetterSqlite3.Database,
    /** The database file, for messages. */
    private readonly path: string,
    private readonly values: StoredValues,
    /** The build id written with each input. */
    private readonly build: string,
  ) {
    this.statements = prepare(db);
    this.inOneTransaction = db.transaction((run: () => number) => run());
  }

  /**
   * Appends one input and returns its sequence number; `alongside`, if given, runs first in
   * the same transaction. JSON drops properties whose value is undefined (e.g. `jid:
   * undefined`); the core reads a missing property and an undefined one alike, so replay is
   * unaffected.
   */
  append(sessionId: SessionId, input: Input, at: number, alongside?: () => void): number {
    if (input.sessionId !== sessionId) {
      throw new TypeError(`append: input is for session ${input.sessionId}, not ${sessionId}`);
    }
    const row = { sessionId, kind: input.kind, at, input: this.values.encode(sessionId, input), build: this.build };
    const run = (): number => Number(this.statements.append.run(row).lastInsertRowid);
    const seq = alongside
      ? this.inOneTransaction(() => {
          alongside();
          return run();
        })
      : run();
    this.values.noteEventTexts(sessionId, seq, input);
    return seq;
  }

  /** Every event of the sessions not archived, in the order they were appended: what replay feeds the core. */
  live(): StoredEvent[] {
    // What is read back is stored already: the rebuilt sessions' rows keep referring to it.
    return (this.statements.liveEvents.all() as EventRow[]).map((row) => this.eventOf(row, true));
  }

  /** Every event of one session, archived or not, in order. */
  of(sessionId: SessionId): StoredEvent[] {
    return (this.statements.eventsOf.all(sessionId) as EventRow[]).map((row) => this.eventOf(row));
  }

  /** Reads one event's input of a session by sequence number, each event once (for one archived session's texts). */
  inputReader(): ReadEventInput {
    const inputs = new Map<number, unknown>();
    return (sessionId, seq) => {
      if (!inputs.has(seq)) {
        const event = this.statements.eventAt.get(seq) as EventRow | undefined;
        inputs.set(seq, event !== undefined && event.session_id === sessionId ? this.eventOf(event).input : undefined);
      }
      return inputs.get(seq);
    };
  }

  /** True if the id was ever used (logged or archived). */
  knows(sessionId: SessionId): boolean {
    return this.statements.knows.get({ sessionId }) !== undefined;
  }

  /** The builds that logged the session's inputs, in the order each first did, with how many each logged. */
  inputBuildsOf(sessionId: SessionId): BuildCount[] {
    const rows = this.statements.inputBuildsOf.all(sessionId) as Array<{ build: string | null; inputs: number }>;
    return rows.map((r) => ({ build: r.build ?? undefined, inputs: r.inputs }));
  }

  /** Every session id that has events, archived or live. */
  sessionIds(): SessionId[] {
    return (this.statements.sessionIds.all() as Array<{ session_id: string }>).map((r) => r.session_id);
  }

  private eventOf(row: EventRow, live = false): StoredEvent {
    const input = this.values.decode<Input>(row.session_id, row.input, `event ${row.seq}`, live);
    if (typeof input !== "object" || input === null || typeof input.kind !== "string" || input.sessionId !== row.session_id) {
      throw corrupted(this.path, `event ${row.seq} is not an input of session ${row.session_id}`);
    }
    // A rebuilt session's archive refers to the texts its events hold, as a live one's does.
    if (live) this.values.noteEventTexts(row.session_id, row.seq, input);
    return { seq: row.seq, sessionId: row.session_id, at: row.at, input };
  }
}

/** The events statements, prepared once: an append is then one bind and one step. */
function prepare(db: BetterSqlite3.Database) {
  return {
    append: db.prepare(`
        INSERT INTO events (session_id, kind, at, live, input, build)
        VALUES (@sessionId, @kind, @at,
          @kind = 'start' OR EXISTS (SELECT 1 FROM events WHERE session_id = @sessionId AND live = 1),
          @input, @build)`),
    liveEvents: db.prepare("SELECT seq, session_id, at, input FROM events WHERE live = 1 ORDER BY seq"),
    eventsOf: db.prepare("SELECT seq, session_id, at, input FROM events WHERE session_id = ? ORDER BY seq"),
    eventAt: db.prepare("SELECT seq, session_id, at, input FROM events WHERE seq = ?"),
    knows: db.prepare("SELECT 1 FROM events WHERE session_id = @sessionId UNION ALL SELECT 1 FROM archived_sessions WHERE id = @sessionId LIMIT 1"),
    inputBuildsOf: db.prepare("SELECT build, count(*) AS inputs FROM events WHERE session_id = ? GROUP BY build ORDER BY min(seq)"),
    sessionIds: db.prepare("SELECT DISTINCT session_id FROM events ORDER BY session_id"),
  };
}
