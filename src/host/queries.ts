/**
 * What the host answers without stepping the core: mfr-status and mfr-list texts, which
 * sessions wait for their agents to be chosen, and the one polite answer to input for a
 * session that is complete and archived.
 *
 * The rules it keeps: a session in memory is answered from memory, one that left memory from
 * the archive, and a session is listed once (in memory wins over archived); an answer from
 * the archive is a private message, not a step, so it is neither logged nor replayed.
 */
import type { Logger } from "pino";
import { listedOf, listedOfSummary, sessionsTable } from "../session/list-text.js";
import { sessionStatus } from "../session/status-text.js";
import { sameParticipant } from "../session/identity.js";
import type { Participant, Requester, Session } from "../session/types.js";
import type { JournalKeeper } from "./journal-keeper.js";
import type { Outbox } from "./outbox.js";
import type { SessionTable } from "./session-table.js";

/** What the queries read, and where an answer from the archive goes. */
export interface SessionQueriesOptions {
  table: SessionTable;
  keeper: JournalKeeper;
  outbox: Outbox;
  log: Logger;
  now: () => number;
}

/** Status and list texts, the sessions still choosing agents, and answers from the archive. */
export class SessionQueries {
  constructor(private readonly options: SessionQueriesOptions) {}

  /** Sessions still choosing their agents (debate, clarification or approval). */
  choosing(): Session[] {
    return this.options.table.live().filter((s) => s.phase === "selecting");
  }

  /** Sessions whose agents are being chosen in a Chair's debate. */
  debating(): Session[] {
    return this.options.table.live().filter((s) => s.phase === "selecting" && s.selection?.stage === "debating");
  }

  /**
   * The newest session waiting for this person to choose agents: one they started, or,
   * for a moderator or allow-listed person, any (the core decides whether they may).
   */
  clarificationFor(by: Requester): Session | undefined {
    const waiting = this.options.table
      .live()
      .filter((s) => s.phase === "selecting" && s.selection?.stage === "clarifying")
      .sort((a, b) => b.startedAt - a.startedAt);
    return waiting.find((s) => sameParticipant(s.startedBy, by)) ?? (by.standing ? waiting[0] : undefined);
  }

  /** One session's status (live or archived); without an id, the live session, or the list of live ones. */
  statusText(sessionId: string | undefined): string {
    const { table, keeper } = this.options;
    const now = this.options.now();
    if (sessionId) {
      const s = table.get(sessionId) ?? keeper.archivedSession(sessionId);
      return s ? sessionStatus(s, now) : `There is no session "${sessionId}". Say "mfr-list" for the sessions.`;
    }
    const live = table.live().sort((a, b) => b.startedAt - a.startedAt);
    if (live.length === 0) return `No session is running. ${this.listText()}`;
    if (live.length === 1) return sessionStatus(live[0] as Session, now);
    return `${live.length} sessions are running; say "mfr-status <id>" for one of them.\n${sessionsTable(live.map(listedOf), now)}`;
  }

  /** The newest sessions, in memory and archived, at most `limit` lines. */
  listText(limit = 10): string {
    const { table, keeper } = this.options;
    const now = this.options.now();
    const inMemory = table.all().map(listedOf);
    const archived = keeper
      .listArchived(limit)
      .filter((a) => table.get(a.id) === undefined)
      .map((a) => ({ summary: a, startedAt: a.startedAt }));
    const all = [...inMemory.map((row) => ({ row, startedAt: row.startedAt })), ...archived].sort((a, b) => b.startedAt - a.startedAt);
    if (all.length === 0) return "No sessions yet. Start one with: mfr-start <problem>";
    // Only the rows shown are read whole from the archive: who started each and how it came out.
    const rows = all.slice(0, limit).map((e) => {
      if ("row" in e) return e.row;
      const whole = keeper.archivedSession(e.summary.id);
      return whole ? listedOf(whole) : listedOfSummary(e.summary);
    });
    const more = all.length > limit ? "\n… and older ones (the web view lists them all)" : "";
    return `Sessions, newest first:\n${sessionsTable(rows, now)}${more}`;
  }

  /**
   * Input for a session that is complete and archived: a polite answer (`answer` words it
   * from the archived session), nothing else. False when the session is in memory or was
   * never archived: the input is for the core then.
   */
  answeredFromArchive(sessionId: string, from: Participant, answer: (s: Session, now: number) => string): boolean {
    const { table, keeper, outbox, log } = this.options;
    if (table.get(sessionId) || !keeper.knows(sessionId)) return false;
    const archived = keeper.archivedSession(sessionId);
    if (!archived) return false;
    log.info({ sessionId, agent: from.nick }, "input for an archived session ignored");
    outbox.tell(sessionId, from, answer(archived, this.options.now()));
    return true;
  }
}
