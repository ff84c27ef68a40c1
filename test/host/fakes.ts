/**
 * Fakes for the host's modules: a journal that keeps what it is given in arrays (so a test
 * can read what was appended, recorded and archived), a silent log, a fixed clock.
 */
import pino from "pino";
import type { ArchivedSummary, SessionJournal } from "../../src/host/journal.js";
import type { Outgoing, RenderContext } from "../../src/host/outgoing.js";
import { privateMessage } from "../../src/host/outgoing.js";
import type { Session } from "../../src/session/types.js";
import type { Input } from "../../src/session/step-io.js";
import type { HeardRecord } from "../../src/host/heard.js";
import type { SentRecord } from "../../src/host/journal-records.js";

export const RENDER: RenderContext = { room: "room@conference.localhost", logRoom: undefined, maxStanzaBytes: 64 * 1024 };

export const silent = pino({ level: "silent" });

/** The fake clock's one instant. */
export const NOW = 1_700_000_000_000;

/** A journal in arrays; `failing` makes the named method throw. */
export class ArrayJournal implements SessionJournal {
  readonly appended: Array<{ sessionId: string; input: Input; at: number; heard: HeardRecord | undefined }> = [];
  readonly sent: SentRecord[] = [];
  readonly archived = new Map<string, Session>();
  readonly artefacts: Array<{ sessionId: string; kind: string; content: string }> = [];
  failing: keyof SessionJournal | undefined;

  private fail(method: keyof SessionJournal): void {
    if (this.failing === method) throw new Error(`${method} failed`);
  }

  append(sessionId: string, input: Input, at: number, heard?: HeardRecord): number {
    this.fail("append");
    this.appended.push({ sessionId, input, at, heard });
    return this.appended.length;
  }
  recordSent(record: SentRecord): void {
    this.fail("recordSent");
    this.sent.push(record);
  }
  sentOf(sessionId: string): SentRecord[] {
    return this.sent.filter((r) => r.sessionId === sessionId);
  }
  sentTrackedAfter(): number {
    return 0;
  }
  archive(session: Session): void {
    this.fail("archive");
    this.archived.set(session.id, session);
  }
  saveArtefact(sessionId: string, kind: string, content: string): void {
    this.artefacts.push({ sessionId, kind, content });
  }
  archivedSession(id: string): Session | undefined {
    return this.archived.get(id);
  }
  listArchived(limit: number): ArchivedSummary[] {
    return [...this.archived.values()]
      .map((s) => ({ id: s.id, problem: s.problem, status: s.completion?.status ?? "cancelled", startedAt: s.startedAt, completedAt: s.completion?.at ?? s.startedAt }))
      .sort((a, b) => b.startedAt - a.startedAt)
      .slice(0, limit);
  }
  knows(id: string): boolean {
    return this.archived.has(id) || this.appended.some((e) => e.sessionId === id);
  }
}

/** A private line to `nick`, as a step or the shell would queue it. */
export function line(sessionId: string, nick: string, text: string): Outgoing {
  return { sessionId, stanza: privateMessage(RENDER.room, nick, text), what: "tell privately" };
}

/** Resolves after the pending sends of a queue had their turns (each ends with a setImmediate). */
export async function turns(n = 10): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
