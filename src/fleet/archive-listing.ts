/**
 * The archived sessions a fleet instance's web view lists (database-view.ts): the newest of
 * every room as the last refresh read them, with the agents of each (read once: an archived
 * session does not change), and the sessions the owned hosts completed since, which the
 * view shows as archived until the snapshot's archive has them. The rules kept here: an id
 * listed twice (two rooms) is listed once, the first (newest) read; a row with an unknown
 * status, or whose session cannot be read, is reported and left out (or listed without its
 * agents), never failing the refresh; what an owned host completed is kept until the
 * archive lists it, or at most a while and COMPLETED_KEPT sessions.
 */
import type { Logger } from "pino";
import type { Session, SessionId } from "../session/types.js";
import { fromArchivedForm, isCompletionStatus, type ArchivedSummary, type ListArchivedOptions } from "../host/journal-records.js";
import { agentsOf, type ListedArchived } from "../web/session-records.js";
import type { SummaryRow } from "./database-reads.js";

/** An archived session as listed, with its room. */
interface ArchivedRow extends ArchivedSummary {
  readonly room: string;
}

/** A session an owned host completed, until the snapshot's archive lists it. */
interface Completed {
  readonly session: Session;
  /** Monotonic instant it was noted. */
  readonly at: number;
}

/** How many sessions completed by owned hosts are kept until the archive lists them. */
const COMPLETED_KEPT = 100;

/** The archive as the web view lists it (see the module comment). */
export class ArchiveListing {
  private archived: ArchivedRow[] = [];
  /** The agents of listed archived sessions, read once (an archived session does not change). */
  private readonly agents = new Map<SessionId, readonly string[]>();
  private readonly completed = new Map<SessionId, Completed>();

  constructor(
    private readonly log: Logger,
    /** How often the view refreshes: a completed session is kept at least ten times as long (and 30 s). */
    private readonly refreshMs: number,
  ) {}

  /** A session an owned host just completed: listed, and shown as archived, at once. */
  noteCompleted(session: Session): void {
    this.completed.delete(session.id);
    this.completed.set(session.id, { session, at: performance.now() });
    while (this.completed.size > COMPLETED_KEPT) this.completed.delete(this.completed.keys().next().value as string);
  }

  /** A session an owned host completed, while it is kept. */
  completedSession(id: SessionId): Session | undefined {
    return this.completed.get(id)?.session;
  }

  /** Whether the agents of a listed session were read (a refresh need not read it whole again). */
  hasAgents(id: SessionId): boolean {
    return this.agents.has(id);
  }

  /**
   * Replaces the list with what a refresh read: the newest archived rows, and the sessions read
   * whole for their agents. Returns the sessions owned hosts completed that it stops keeping
   * (the archive lists them now, or they were kept long enough): each is its archived session
   * whole, for the view to keep, since no page may load it before it is asked for again.
   */
  apply(rows: readonly SummaryRow[], whole: readonly { id: string; session: Session }[]): Session[] {
    const archived: ArchivedRow[] = [];
    const seen = new Set<SessionId>();
    for (const row of rows) {
      if (seen.has(row.id)) continue;
      seen.add(row.id);
      if (!isCompletionStatus(row.status)) {
        this.log.warn({ room: row.room, sessionId: row.id, status: row.status }, "an archived session has an unknown status; the web view leaves it out");
        continue;
      }
      archived.push({ room: row.room, id: row.id, problem: row.problem, status: row.status, startedAt: Number(row.started_at), completedAt: Number(row.completed_at) });
    }
    this.archived = archived;
    for (const { id, session } of whole) {
      try {
        this.agents.set(id, agentsOf(fromArchivedForm(session)));
      } catch (err) {
        this.log.warn({ err, sessionId: id }, "an archived session could not be read; the web view lists it without its agents");
        this.agents.set(id, []);
      }
    }
    const listed = new Set(archived.map((a) => a.id));
    for (const id of [...this.agents.keys()]) if (!listed.has(id)) this.agents.delete(id);
    const keptSince = performance.now() - Math.max(30_000, 10 * this.refreshMs);
    const released: Session[] = [];
    for (const [id, completed] of this.completed) {
      if (!listed.has(id) && completed.at >= keptSince) continue;
      this.completed.delete(id);
      released.push(completed.session);
    }
    return released;
  }

  /** The newest archived sessions as last read, and those completed since, newest start first, with their agents where read. */
  list(options: ListArchivedOptions): ListedArchived[] {
    const { limit, before } = options;
    const listed = new Set(this.archived.map((a) => a.id));
    const recent: ArchivedSummary[] = [];
    for (const { session } of this.completed.values()) {
      const { completion } = session;
      if (completion === null || listed.has(session.id)) continue;
      recent.push({ id: session.id, problem: session.problem, status: completion.status, startedAt: session.startedAt, completedAt: completion.at });
    }
    return [...this.archived, ...recent]
      .filter((a) => before === undefined || a.startedAt < before)
      .sort((a, b) => b.startedAt - a.startedAt)
      .slice(0, Math.max(0, limit))
      .map((a) => {
        const completed = this.completed.get(a.id)?.session;
        const agents = completed ? agentsOf(completed) : this.agents.get(a.id);
        return { id: a.id, problem: a.problem, status: a.status, startedAt: a.startedAt, completedAt: a.completedAt, ...(agents ? { agents } : {}) };
      });
  }
}
