/**
 * The outbox: every stanza the host sends goes through it, to the connection's outlet.
 *
 * The rules it keeps: stanzas leave in the order they were queued, one at a time; a stanza of
 * a logged step carries an origin-id made of its place in the log, and once the connection
 * has taken it the sent-record says so, once; what a crash kept from going out is sent once,
 * unless the room's history shows it went out before.
 */
import type { Logger } from "pino";
import type { Participant } from "../session/types.js";
import type { SentRecord } from "./journal-records.js";
import { NS_SID, originIdElement } from "../xmpp/room-history.js";
import type { Element } from "../xmpp/stanza.js";
import { hintStorage } from "../xmpp/storage-hints.js";
import { decisiveDigest } from "./decisive-digest.js";
import { privateMessage, stanzaDigest, type Outgoing } from "./outgoing.js";
import type { ExpectedSend } from "./sent-check.js";

/** Where the host's messages go. */
export interface Outlet {
  /**
   * Sends one stanza to the server; called in order, one at a time. `sized`: the stanza is
   * known to be within the stanza limit, so it need not be measured (serialized) again.
   */
  send(stanza: Element, options?: { sized?: boolean }): Promise<unknown>;
  /**
   * Resolves once the server has taken in what was sent so far. Awaited after each bulk
   * stanza (a model part), so the model is not piled into the socket megabytes ahead and
   * replies to people, sent beside this queue, wait for one part at most.
   */
  settled?(): Promise<void>;
}

/** Where the outbox notes what the connection took (the journal, host/journal-keeper.ts). */
export interface SentRecorder {
  /** Whether sends are recorded at all: without a journal no digest is worth computing. */
  readonly tracksSends: boolean;
  /** Notes one sent stanza; never throws. */
  recordSent(record: SentRecord): void;
}

/** A stanza's place: the logged step it belongs to (`eventSeq`), its place among that step's stanzas, the step's instant. */
export interface SendPlace {
  eventSeq: number;
  position: number;
  at: number;
}

/**
 * The id a stanza of a logged step is sent with (XEP-0359 origin-id, and the stanza's id):
 * made of what it answers (the session, the input's place in the log, its place among that
 * input's stanzas), so the same stanza sent again after a crash has the same id, and the
 * room's history shows whether it went out before (see `Outbox.sendUnsent`).
 */
export function originIdOf(sessionId: string, record: { eventSeq: number; position: number }): string {
  return `mfr:${sessionId}:${record.eventSeq}:${record.position}`;
}

/** The queue of the host's stanzas, sent one after another in the order given. */
export class Outbox {
  /** Outgoing messages are chained so they leave in the order the core produced them. */
  private sending: Promise<void> = Promise.resolve();
  /** What a crash kept from going out, found at restore; sent once the rooms are caught up on. */
  private unsent: ExpectedSend[] = [];

  constructor(
    private readonly outlet: Outlet,
    private readonly sent: SentRecorder,
    private readonly log: Logger,
    /** Where a private answer goes when the participant's own room is not known. */
    private readonly room: string,
  ) {}

  /**
   * Sends in the order queued, one at a time; once the connection has taken a stanza of a
   * logged step (`place` given), the sent-record says so. A failed send is logged and the
   * stanzas after it still go.
   */
  queue(outgoing: Outgoing, place: SendPlace | undefined): void {
    const { log, outlet, sent } = this;
    this.sending = this.sending
      .then(async () => {
        // A model part is built here, in its turn (see outgoing.ts, `lazyOutgoing`).
        const { stanza } = outgoing;
        // The digests are of what the step rendered; the origin-id is added after (room-history.ts).
        const digests = place && sent.tracksSends ? { digest: stanzaDigest(stanza), decisive: decisiveDigest(outgoing) } : undefined;
        if (place) stampOriginId(stanza, originIdOf(outgoing.sessionId, place));
        // Not kept: a model's parts; kept: a protocol message without a body (storage-hints.ts).
        hintStorage(stanza, outgoing.bulk === true);
        await outlet.send(stanza, outgoing.sized ? { sized: true } : undefined);
        if (place && digests !== undefined) sent.recordSent({ sessionId: outgoing.sessionId, ...place, ...digests, what: outgoing.what });
        if (outgoing.bulk) await outlet.settled?.();
        // A model goes out as dozens of ~200 KiB stanzas, each measured and digested; without
        // a turn of the event loop between them the whole chain runs as one long task.
        await new Promise<void>((resolve) => setImmediate(resolve));
      })
      .catch((err: unknown) => log.error({ err }, "send failed"));
  }

  /** An answer to one participant from the shell, not a step of the core: not logged, so not replayed. */
  tell(sessionId: string, to: Participant, text: string): void {
    this.queue({ sessionId, stanza: privateMessage(to.room ?? this.room, to.nick, text), what: "tell privately", addressee: to.nick }, undefined);
  }

  /** Resolves once everything queued so far has been handed over (or has failed). */
  drained(): Promise<void> {
    return this.sending;
  }

  /** Keeps what a crash kept from going out until `sendUnsent`; replaces whatever was kept. */
  holdUnsent(tail: ExpectedSend[]): void {
    this.unsent = tail;
  }

  /** How many stanzas are held for `sendUnsent`. */
  get heldUnsent(): number {
    return this.unsent.length;
  }

  /** The instant of the earliest step whose stanzas are held for `sendUnsent`, or undefined when none are. */
  get unsentSince(): number | undefined {
    return this.unsent.length === 0 ? undefined : Math.min(...this.unsent.map((expected) => expected.at));
  }

  /**
   * Sends what a crash kept from going out, in order, once: a stanza whose origin-id the
   * rooms' history shows (`carried`) went out before the crash (it was written to the socket
   * but not recorded), so it is recorded now and not sent again. A second call sends nothing.
   */
  sendUnsent(carried: ReadonlySet<string>): { sent: number; skipped: number } {
    const tail = this.unsent;
    this.unsent = [];
    let skipped = 0;
    for (const e of tail) {
      const place = { eventSeq: e.eventSeq, position: e.position, at: e.at };
      if (!carried.has(originIdOf(e.outgoing.sessionId, place))) {
        this.queue(e.outgoing, place);
        continue;
      }
      skipped++;
      this.sent.recordSent({ sessionId: e.outgoing.sessionId, ...place, digest: e.digest, decisive: decisiveDigest(e.outgoing), what: e.outgoing.what });
    }
    const bySession = new Map<string, string[]>();
    for (const e of tail) bySession.set(e.outgoing.sessionId, [...(bySession.get(e.outgoing.sessionId) ?? []), e.outgoing.what]);
    for (const [sessionId, what] of bySession) this.log.warn({ sessionId, stanzas: what.length, what }, "sending what a crash kept from going out");
    if (skipped > 0) this.log.info({ skipped }, "not sent again: the room's history shows these went out before the crash");
    return { sent: tail.length - skipped, skipped };
  }
}

/** The stanza's id and its XEP-0359 origin-id, so the room's history can show it went out. */
function stampOriginId(stanza: Element, id: string): void {
  stanza.attrs.id = id;
  if (!stanza.getChild("origin-id", NS_SID)) stanza.append(originIdElement(id));
}
