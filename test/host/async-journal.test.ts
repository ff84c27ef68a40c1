/**
 * The session host over a journal whose appends cross a network (the PostgreSQL room store:
 * `append` returns a Promise). Here the Promise is resolved by hand: nothing an input asks
 * for — a message to the outlet, a deadline, model work, the archive — happens before its
 * append resolves; the effects of successive inputs run in input order, and the stanzas are
 * the same, in the same order, as over a synchronous journal; an append that fails drops its
 * input's effects and says so in the log.
 */
import pino from "pino";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { CheckAnswer } from "../../src/model-workers/model-worker.js";
import type { Participant, Session } from "../../src/session/types.js";
import type { Input } from "../../src/session/step-io.js";
import type { ArchivedSummary, ModelService, SessionHost, SessionJournal, SessionStep } from "../../src/host/session-host.js";
import type { HeardRecord } from "../../src/host/heard.js";
import type { SentRecord } from "../../src/host/journal-records.js";
import type { Element } from "../../src/xmpp/stanza.js";
import { ArrayJournal, turns } from "./fakes.js";
import { testHost } from "../support/test-host.js";

const T0 = 1_700_000_000_000;
const HUMAN: Participant = { nick: "dana", jid: "dana@localhost" };
const MODELER: Participant = { nick: "modeler", jid: "modeler@localhost" };
const TURTLE = "<#truck> a <http://purl.org/stuff/mfr/Entity> .";

/** A journal whose appends stay pending until the test settles them, oldest first. */
class HandJournal implements SessionJournal {
  readonly pending: Array<{ input: Input; heard: HeardRecord | undefined; resolve: () => void; reject: (err: Error) => void }> = [];
  readonly sent: SentRecord[] = [];
  readonly archived: Session[] = [];
  readonly artefacts: Array<{ sessionId: string; kind: string }> = [];
  private seq = 0;

  append(_sessionId: string, input: Input, _at: number, heard?: HeardRecord): Promise<number> {
    const seq = ++this.seq;
    return new Promise<number>((resolve, reject) => this.pending.push({ input, heard, resolve: () => resolve(seq), reject }));
  }
  /** Makes the oldest pending append durable. */
  resolveNext(): Input {
    const next = this.pending.shift();
    if (!next) throw new Error("no append is pending");
    next.resolve();
    return next.input;
  }
  /** Fails the oldest pending append. */
  rejectNext(err: Error): Input {
    const next = this.pending.shift();
    if (!next) throw new Error("no append is pending");
    next.reject(err);
    return next.input;
  }
  recordSent(record: SentRecord): void {
    this.sent.push(record);
  }
  sentOf(sessionId: string): SentRecord[] {
    return this.sent.filter((r) => r.sessionId === sessionId);
  }
  sentTrackedAfter(): number {
    return 0;
  }
  archive(session: Session): void {
    this.archived.push(session);
  }
  saveArtefact(sessionId: string, kind: string): void {
    this.artefacts.push({ sessionId, kind });
  }
  archivedSession(id: string): Session | undefined {
    return this.archived.find((s) => s.id === id);
  }
  listArchived(): ArchivedSummary[] {
    return [];
  }
  knows(id: string): boolean {
    return this.archived.some((s) => s.id === id);
  }
}

/** Contribution checks that accept; analyses that are counted and never answer. */
function models(): ModelService & { analysed: string[] } {
  const analysed: string[] = [];
  return {
    analysed,
    check: async (): Promise<CheckAnswer> => ({ ok: true, check: { ok: true, tripleCount: 1, counts: { entities: 1, stateVariables: 0, actions: 0, constraints: 0, goals: 0, triples: 1 } } }),
    analyse: (job) => {
      analysed.push(job.sessionId);
      return new Promise(() => undefined);
    },
    verify: () => Promise.reject(new Error("unused")),
  };
}

/** Session ids from a fixed sequence, so two hosts fed the same inputs choose the same ones. */
function seeded(): () => number {
  let n = 0;
  return () => ((n = (n * 9301 + 49297) % 233280), n / 233280);
}

interface Rig {
  host: SessionHost;
  sent: Element[];
  steps: SessionStep[];
  analysed: string[];
  errors: () => Array<Record<string, unknown>>;
}

function rig(journal: SessionJournal): Rig {
  const sent: Element[] = [];
  const logged: string[] = [];
  const service = models();
  const host = testHost({
    journal,
    models: service,
    outlet: { send: async (stanza) => void sent.push(stanza) },
    log: pino({ level: "error" }, { write: (line: string) => void logged.push(line) }),
    now: () => Date.now(),
    random: seeded(),
  });
  const steps: SessionStep[] = [];
  host.onStep((step) => void steps.push(step));
  return { host, sent, steps, analysed: service.analysed, errors: () => logged.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

function started(host: SessionHost, expectedAgents: string[] = []): string {
  const result = host.start("Move the crates", HUMAN, { expectedAgents });
  if (!result.ok) throw new Error(result.reason);
  return result.sessionId;
}

const bodies = (stanzas: readonly Element[]): string[] => stanzas.map((s) => String(s.getChildText("body") ?? s.toString()));

beforeEach(() => {
  // Deadlines are setTimeout timers read against Date.now(): both fake. The outbox's turns (setImmediate) stay real.
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  vi.setSystemTime(T0);
});
afterEach(() => {
  vi.useRealTimers();
});

describe("SessionHost over a journal whose appends resolve later", () => {
  it("does nothing an input asks for — messages, deadline, analysis, archive — before its append resolves", async () => {
    const journal = new HandJournal();
    const { host, sent, steps, analysed } = rig(journal);

    // The start: stepped at once, but no request goes out and no window is timed.
    const id = started(host, ["modeler"]);
    expect(host.session(id)?.phase).toBe("collecting");
    await turns();
    expect(sent).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
    expect(steps).toEqual([]);
    expect(journal.resolveNext().kind).toBe("start");
    await turns();
    expect(bodies(sent).join("\n")).toContain(id);
    const afterStart = sent.length;
    expect(journal.sent.map((r) => r.eventSeq)).toEqual(Array(afterStart).fill(1));
    expect(vi.getTimerCount()).toBe(1);
    expect(steps.map((s) => s.input.kind)).toEqual(["start"]);

    // The only expected agent contributes: no acknowledgement and no analysis until it is durable.
    await host.contribute(id, MODELER, TURTLE);
    expect(host.session(id)?.contributions.modeler).toBeDefined();
    await turns();
    expect(sent).toHaveLength(afterStart);
    expect(analysed).toEqual([]);
    expect(journal.resolveNext().kind).toBe("contribution");
    await turns();
    expect(analysed).toEqual([id]);
    expect(bodies(sent.slice(afterStart)).some((b) => b.startsWith(`Contribution received for ${id}`))).toBe(true);
    const afterContribution = sent.length;

    // The cancel completes the session: it is archived, and leaves memory, only once the cancel is durable.
    expect(host.cancel(id, HUMAN)).toBe(true);
    expect(host.session(id)?.phase).toBe("complete");
    await turns();
    expect(sent).toHaveLength(afterContribution);
    expect(journal.archived).toEqual([]);
    expect(journal.resolveNext().kind).toBe("cancel");
    await turns();
    expect(journal.archived.map((s) => s.id)).toEqual([id]);
    expect(host.session(id)).toBeUndefined();
    expect(bodies(sent.slice(afterContribution)).join("\n")).toMatch(/cancel/i);
    expect(steps.map((s) => s.input.kind)).toEqual(["start", "contribution", "cancel"]);
    await host.close();
  });

  it("a deadline's own effects wait for its append too", async () => {
    const journal = new HandJournal();
    const { host, sent } = rig(journal);
    const id = started(host, ["modeler", "planner"]);
    journal.resolveNext();
    await turns();
    const before = sent.length;
    // The contribution window (60 s) runs out: the deadline is an input like any other.
    vi.advanceTimersByTime(60_000);
    expect(journal.pending.map((p) => p.input.kind)).toEqual(["deadline"]);
    await turns();
    expect(sent).toHaveLength(before);
    journal.resolveNext();
    await turns();
    expect(bodies(sent.slice(before)).some((b) => b.startsWith(`[MFR] Session ${id}: the contribution window closed`))).toBe(true);
    await host.close();
  });

  it("runs the effects of successive inputs in input order: the same stanzas, in the same order, as over a synchronous journal", async () => {
    const feed = (host: SessionHost): string[] => {
      const a = started(host, ["modeler"]);
      const b = started(host, ["modeler"]);
      host.cancel(a, HUMAN);
      const c = started(host);
      host.cancel(b, HUMAN);
      return [a, b, c];
    };
    const reference = rig(new ArrayJournal());
    const referenceIds = feed(reference.host);
    await turns(20);
    await reference.host.close();

    const journal = new HandJournal();
    const { host, sent } = rig(journal);
    const ids = feed(host);
    expect(ids).toEqual(referenceIds);
    expect(journal.pending.map((p) => p.input.kind)).toEqual(["start", "start", "cancel", "start", "cancel"]);
    await turns();
    expect(sent).toEqual([]);
    // One at a time: each input's stanzas follow the ones before, whatever the outbox had in hand.
    const counts: number[] = [];
    while (journal.pending.length > 0) {
      journal.resolveNext();
      await turns();
      counts.push(sent.length);
    }
    expect(counts.every((n, i) => i === 0 || n > counts[i - 1]!)).toBe(true);
    expect(sent.map(String)).toEqual(reference.sent.map(String));

    // All settled at once, in call order: the same again.
    const again = new HandJournal();
    const second = rig(again);
    feed(second.host);
    while (again.pending.length > 0) again.resolveNext();
    await turns(20);
    expect(second.sent.map(String)).toEqual(reference.sent.map(String));
    await host.close();
    await second.host.close();
  });

  it("an append that fails drops its input's effects and logs it; the next durable input is carried out", async () => {
    const journal = new HandJournal();
    const { host, sent, steps, errors } = rig(journal);
    const failed = started(host, ["modeler"]);
    journal.rejectNext(new Error("write for room refused: the room's lease is at epoch 2"));
    await turns();
    expect(sent).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
    expect(steps).toEqual([]);
    expect(errors()).toEqual([
      expect.objectContaining({
        msg: "the input could not be made durable; what it asked for is not done",
        input: "start",
        sessionId: failed,
        err: expect.objectContaining({ message: "write for room refused: the room's lease is at epoch 2" }),
      }),
    ]);

    // A completing input that fails: nothing is archived, nothing said.
    const other = started(host);
    journal.resolveNext();
    await turns();
    const before = sent.length;
    expect(before).toBeGreaterThan(0);
    host.cancel(other, HUMAN);
    journal.rejectNext(new Error("connection terminated"));
    await turns();
    expect(sent).toHaveLength(before);
    expect(journal.archived).toEqual([]);
    expect(errors().map((e) => [e.input, e.sessionId])).toEqual([
      ["start", failed],
      ["cancel", other],
    ]);
    expect(steps.map((s) => s.input.kind)).toEqual(["start"]);
    await host.close();
  });
});
