/**
 * What the web view of a fleet instance shows (docs/web-view.md, "Several instances"): every
 * session in the shared PostgreSQL database — the live ones of every room, owned by this
 * instance or by another, and the archived ones — read-only. It is the view's `LiveSessions`
 * and its `SessionArchive` (src/web/session-records.ts).
 *
 * The rules it keeps:
 *  - The web view's reads are synchronous, the database's are not: pages are drawn from the
 *    last snapshot loaded. A refresh runs every `refreshMs` (2 s) and on demand (`refresh`,
 *    at most one running and one waiting). Each refresh reads, in one read-only transaction
 *    (one consistent picture: a session archived meanwhile is either live or archived in it,
 *    never neither): which sessions are live in which room (journal_events WHERE live), the
 *    events each of them logged since the last refresh, and the newest archived sessions of
 *    every room. So the list, and the pages of sessions this instance does not own, lag by
 *    up to the refresh period.
 *  - A live session is rebuilt by stepping its logged inputs with the pure core, each with
 *    the instant it was logged at, as the owner's restore does (store/replay.ts); a refresh
 *    steps only the events that are new since the last one. An input the core throws on is
 *    skipped, as replay skips it.
 *  - A session's page loads that session first (`prepare`): the events it logged since the
 *    last load, or, for a session the snapshot does not have (archived before the newest
 *    listed, or started since the last refresh), its archived form and its events. So the
 *    page of any session is as fresh as the database when it is asked for.
 *  - The rooms this instance owns are served from their coordinators' hosts (`addOwned`),
 *    which are ahead of the database; the view passes on their steps, plus one step per
 *    session of another room whose events a load brought (the last one), so live pages and
 *    the sessions list follow those too. A session an owned host completed is shown as
 *    archived at once, and is kept whole among the archived sessions once the snapshot's
 *    archive lists it (its events come with the next load of its page).
 *  - Bounded: live sessions loaded, archived sessions listed, events read per load and kept
 *    per session, archived sessions kept whole, loads at once, and each statement's time
 *    (DatabaseViewLimits). A refresh's cost is the new events and the list; the archive is
 *    read through its per-room index, never scanned whole.
 *  - A database error never reaches the process: it is logged (once, then at most every
 *    minute while it lasts) and the view keeps showing the last snapshot.
 *
 * Tables: journal_events, journal_archived and room_leases (store/pg/migrations.ts), read by
 * the statements of database-reads.ts. Writes nothing.
 */
import type pg from "pg";
import type { Logger } from "pino";
import { stepSession } from "../session/step.js";
import type { Session, SessionId } from "../session/types.js";
import type { SessionStep } from "../host/session-host.js";
import { fromArchivedForm, type ListArchivedOptions, type StoredEvent } from "../host/journal-records.js";
import { Recent } from "../web/recent.js";
import type { ListedArchived, LiveSessions, SessionArchive } from "../web/session-records.js";
import { eventOfRow, readOnly, readSession, readSnapshot, type EventRow, type Loaded } from "./database-reads.js";
import { ArchiveListing } from "./archive-listing.js";
import { ReadFailures } from "./read-failures.js";

/** The host of a room unit this instance owns, as the view reads it (SessionHost is one). */
export interface OwnedHost {
  onStep(listener: (step: SessionStep) => void): () => void;
  session(id: SessionId): Session | undefined;
  readonly sessions: { readonly byId: Readonly<Record<SessionId, Session>> };
}

/** What bounds the view's memory and its cost to the database. */
export interface DatabaseViewLimits {
  /** Live sessions loaded and rebuilt, the most recently started first. */
  readonly liveSessions: number;
  /** Archived sessions listed, the newest start first (older ones open by their address). */
  readonly archivedListed: number;
  /** Events one load reads; a refresh that stops there goes on from there at the next one. */
  readonly eventsPerLoad: number;
  /** Events kept per session for its timeline (its state is stepped through all of them). */
  readonly eventsPerSession: number;
  /** Archived sessions kept whole with their events, for their pages (least recently asked for go first). */
  readonly archivedKept: number;
  /** Archived sessions read whole per refresh to name their agents in the list. */
  readonly agentsPerRefresh: number;
  /** Page loads at once; past it, a page is drawn from what is loaded. */
  readonly concurrentLoads: number;
  /** The longest a statement of the view may run. */
  readonly statementTimeoutMs: number;
}

/** The default bounds. */
export const DATABASE_VIEW_LIMITS: DatabaseViewLimits = {
  liveSessions: 200,
  archivedListed: 200,
  eventsPerLoad: 2_000,
  eventsPerSession: 5_000,
  archivedKept: 20,
  agentsPerRefresh: 25,
  concurrentLoads: 2,
  statementTimeoutMs: 5_000,
};

/** How the view reads the database. */
export interface DatabaseViewOptions {
  /** A pool of its own: the view's reads never wait on, or hold up, the leases and the writes. */
  readonly pool: pg.Pool;
  readonly log: Logger;
  /** How often the snapshot is loaded. Default 2 s. */
  readonly refreshMs?: number;
  readonly limits?: Partial<DatabaseViewLimits>;
}

/** One live session of the snapshot: its room, its state as its events leave it, and the events. */
interface LiveEntry {
  readonly room: string;
  session: Session | undefined;
  readonly events: StoredEvent[];
  /** The newest sequence number stepped (or skipped). */
  lastSeq: number;
}

/**
 * Every session in the shared database, for a fleet instance's web view (see the module
 * comment). Its parts: the archive's list (archive-listing.ts), the log of read failures
 * (read-failures.ts), the statements (database-reads.ts).
 */
export class DatabaseView implements LiveSessions, SessionArchive {
  private readonly pool: pg.Pool;
  private readonly log: Logger;
  private readonly refreshMs: number;
  private readonly limits: DatabaseViewLimits;
  private readonly live = new Map<SessionId, LiveEntry>();
  /** The archived sessions listed, and those the owned hosts completed since (archive-listing.ts). */
  private readonly listing: ArchiveListing;
  private readonly archivedSessions: Recent<Session>;
  private readonly archivedEvents: Recent<StoredEvent[]>;
  private readonly owned = new Map<string, { host: OwnedHost; stop: () => void }>();
  private readonly listeners = new Set<(step: SessionStep) => void>();
  private readonly loading = new Map<SessionId, Promise<void>>();
  private running: Promise<void> | undefined;
  private waiting: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  /** Read failures, logged without flooding (read-failures.ts). */
  private readonly failures: ReadFailures;

  constructor(options: DatabaseViewOptions) {
    this.pool = options.pool;
    this.log = options.log;
    this.refreshMs = options.refreshMs ?? 2_000;
    this.limits = { ...DATABASE_VIEW_LIMITS, ...options.limits };
    this.listing = new ArchiveListing(this.log, this.refreshMs);
    this.failures = new ReadFailures(this.log);
    this.archivedSessions = new Recent(this.limits.archivedKept);
    this.archivedEvents = new Recent(this.limits.archivedKept);
  }

  /** Loads the first snapshot now and then every `refreshMs`, until `close`. */
  start(): void {
    if (this.closed || this.timer !== undefined) return;
    const tick = (): void => {
      void this.refresh().finally(() => {
        if (this.closed) return;
        this.timer = setTimeout(tick, this.refreshMs);
        this.timer.unref();
      });
    };
    this.timer = setTimeout(tick, 0);
    this.timer.unref();
  }

  /**
   * Loads a snapshot; resolves once one that started after the call is in (or failed, which
   * is logged: it never rejects). At most one runs and one waits: callers share them.
   */
  refresh(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.waiting) return this.waiting;
    if (!this.running) return (this.running = this.runRefresh());
    const waiting = this.running.then(() => {
      this.waiting = undefined;
      return (this.running = this.runRefresh());
    });
    this.waiting = waiting;
    return waiting;
  }

  /** Stops refreshing and listening; resolves once the reads under way have settled (the pool is the caller's). */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    for (const { stop } of this.owned.values()) stop();
    this.owned.clear();
    this.listeners.clear();
    await Promise.all([this.running, this.waiting, ...this.loading.values()].map((p) => p?.catch(() => undefined)));
  }

  // ---- the rooms this instance owns ---------------------------------------------------------

  /**
   * A unit this instance now owns (its coordinator has started): its sessions are read from
   * its host, and its steps are passed on to the view.
   */
  addOwned(room: string, host: OwnedHost): void {
    if (this.closed) return;
    this.owned.get(room)?.stop();
    const stop = host.onStep((step) => this.takeOwnedStep(step));
    this.owned.set(room, { host, stop });
  }

  /** The unit is being given up (by this host): its sessions are read from the database again. */
  removeOwned(room: string, host: OwnedHost): void {
    const owned = this.owned.get(room);
    if (owned?.host !== host) return;
    owned.stop();
    this.owned.delete(room);
  }

  private takeOwnedStep(step: SessionStep): void {
    if (step.after?.phase === "complete") this.listing.noteCompleted(step.after);
    this.emit(step);
  }

  // ---- LiveSessions ---------------------------------------------------------------------------

  /** Hears the owned hosts' steps, and the last new step of each session of another room a load brought. */
  onStep(listener: (step: SessionStep) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A session in an owned host, else a live one of another room as last loaded. */
  session(id: SessionId): Session | undefined {
    for (const { host } of this.owned.values()) {
      const session = host.session(id);
      if (session) return session;
    }
    const entry = this.live.get(id);
    return entry && !this.owned.has(entry.room) ? entry.session : undefined;
  }

  /** The owned hosts' sessions and the live sessions of the other rooms as last loaded. */
  get sessions(): { byId: Record<SessionId, Session> } {
    const byId: Record<SessionId, Session> = {};
    for (const [id, entry] of this.live) {
      if (entry.session && !this.owned.has(entry.room)) byId[id] = entry.session;
    }
    for (const { host } of this.owned.values()) Object.assign(byId, host.sessions.byId);
    return { byId };
  }

  // ---- SessionArchive -------------------------------------------------------------------------

  /** The newest archived sessions of every room as last loaded (and those owned hosts completed since), with their agents where read. */
  listArchived(options: ListArchivedOptions): ListedArchived[] {
    return this.listing.list(options);
  }

  /** An archived session: one an owned host just completed, or one loaded for its page. */
  archivedSession(id: SessionId): Session | undefined {
    return this.listing.completedSession(id) ?? this.archivedSessions.get(id);
  }

  /** A session's logged events as loaded (at most `eventsPerSession`); none when they are not loaded. */
  eventsOf(id: SessionId): StoredEvent[] {
    const events = this.live.get(id)?.events ?? this.archivedEvents.get(id);
    return events ? [...events] : [];
  }

  /**
   * Loads one session for its page: a live one's events since the last load (stepped), or a
   * session the snapshot does not have whole (archived, or started since the last refresh).
   * Never rejects; past `concurrentLoads` the page is drawn from what is loaded.
   */
  prepare(id: SessionId): Promise<void> {
    if (this.closed) return Promise.resolve();
    const pending = this.loading.get(id);
    if (pending) return pending;
    if (!this.live.has(id) && this.archivedSessions.get(id) !== undefined && this.archivedEvents.get(id) !== undefined) return Promise.resolve();
    if (this.loading.size >= this.limits.concurrentLoads) return Promise.resolve();
    const job = this.loadSession(id)
      .catch((err: unknown) => this.failures.failed(err, id))
      .finally(() => this.loading.delete(id));
    this.loading.set(id, job);
    return job;
  }

  // ---- loading ------------------------------------------------------------------------------

  private async runRefresh(): Promise<void> {
    try {
      if (this.closed) return;
      const loaded = await this.read((db) =>
        readSnapshot(db, this.limits, {
          lastSeqOf: (id) => this.live.get(id)?.lastSeq ?? 0,
          hasAgents: (id) => this.listing.hasAgents(id),
        }),
      );
      if (this.closed) return;
      this.apply(loaded);
      this.failures.recovered();
    } catch (err) {
      this.failures.failed(err);
    } finally {
      this.running = undefined;
    }
  }

  /** Replaces the snapshot with what a refresh read. */
  private apply(loaded: Loaded): void {
    // An id live in two rooms (two instances chose the same one: rare, see docs/operating.md)
    // is shown once: the most recently started (listed first), its entry tied to its room.
    const liveRooms = new Map<SessionId, string>();
    for (const row of loaded.live) if (!liveRooms.has(row.session_id)) liveRooms.set(row.session_id, row.room);
    for (const [id, entry] of [...this.live]) if (liveRooms.get(id) !== entry.room) this.live.delete(id);
    for (const [id, room] of liveRooms) if (!this.live.has(id)) this.live.set(id, { room, session: undefined, events: [], lastSeq: 0 });
    this.step(loaded.events);

    // A session an owned host completed stays at hand as the archived session it is: between
    // the refresh that lists it and a load of it (one may be under way, or past the bound)
    // its page and graph were otherwise not found.
    for (const session of this.listing.apply(loaded.archived, loaded.whole)) {
      if (this.archivedSessions.get(session.id) === undefined) this.archivedSessions.set(session.id, session);
    }
  }

  private async loadSession(id: SessionId): Promise<void> {
    const entry = this.live.get(id);
    const limit = entry ? this.limits.eventsPerLoad : this.limits.eventsPerSession;
    // A session of an owned room its host no longer holds was archived since the last refresh.
    const archivedSince = entry !== undefined && this.owned.has(entry.room) && this.session(id) === undefined && this.archivedSession(id) === undefined;
    const { events, archived } = await this.read((db) =>
      readSession(db, id, { after: entry?.lastSeq ?? 0, limit, room: entry?.room, withArchived: !entry || archivedSince }),
    );
    if (this.closed) return;
    if (entry) {
      // Still the entry the rows were read for (a refresh may have dropped it meanwhile).
      if (this.live.get(id) === entry) this.step(events);
      if (archived !== undefined) this.archivedSessions.set(id, fromArchivedForm(archived));
      return;
    }
    if (archived !== undefined) {
      this.archivedSessions.set(id, fromArchivedForm(archived));
      this.archivedEvents.set(id, events.flatMap((row) => this.eventOf(row) ?? []));
      return;
    }
    const room = events[0]?.room;
    if (room === undefined || this.live.has(id)) return;
    // Live, and not in the snapshot yet: started since the last refresh (or past the bound).
    this.live.set(id, { room, session: undefined, events: [], lastSeq: 0 });
    this.step(events);
  }

  /**
   * Steps each live session through its rows that are newer than what it has, in order, and
   * passes on the last step of each session of a room this instance does not own.
   */
  private step(rows: readonly EventRow[]): void {
    const last = new Map<SessionId, SessionStep>();
    for (const row of rows) {
      const entry = this.live.get(row.session_id);
      const seq = Number(row.seq);
      if (!entry || entry.room !== row.room || !(seq > entry.lastSeq)) continue;
      entry.lastSeq = seq;
      const event = this.eventOf(row);
      if (!event) continue;
      if (entry.events.length < this.limits.eventsPerSession) entry.events.push(event);
      const before = entry.session;
      try {
        const { session, effects } = stepSession(before, event.input, event.at);
        entry.session = session ?? before;
        last.set(event.sessionId, { at: event.at, input: event.input, before, after: session, effects });
      } catch {
        // Replay skips an input the core throws on; so does the view.
      }
    }
    for (const [id, step] of last) {
      const entry = this.live.get(id);
      if (entry && !this.owned.has(entry.room)) this.emit(step);
    }
  }

  /** A row as a logged event; a row that is not an input of its session is reported and skipped, never stepped. */
  private eventOf(row: EventRow): StoredEvent | undefined {
    const event = eventOfRow(row);
    if (!event) this.log.warn({ room: row.room, sessionId: row.session_id, seq: row.seq }, "a logged event is not an input of its session; the web view skips it");
    return event;
  }

  /** Runs `fn` in one read-only snapshot of the database (database-reads.ts). */
  private read<T>(fn: (db: pg.ClientBase) => Promise<T>): Promise<T> {
    return readOnly(this.pool, this.limits.statementTimeoutMs, fn);
  }

  private emit(step: SessionStep): void {
    for (const listener of this.listeners) {
      try {
        listener(step);
      } catch (err) {
        this.log.error({ err, sessionId: step.input.sessionId }, "a web view step listener failed");
      }
    }
  }
}
