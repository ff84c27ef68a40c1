/**
 * Contributions that come in parts (docs/protocol.md, "ModelFirstRDF contributions"): each part is
 * a ModelFirstRDF message with `modelPart` = "k/n" and a complete Turtle document; the
 * contribution is the union of parts 1..n from one sender, and a new part 1/n starts it over.
 *
 * This assembler holds the parts of the contributions still incomplete, one series per
 * (session, sender identity): another occupant's parts, under whatever nick, never join a
 * series that is not its own. It is pure (no clock, no I/O): the session host feeds it parts
 * in arrival order, each already checked on its own, and feeds the union of a complete
 * series to the session core as ONE contribution. Parts are not inputs of the core, so
 * nothing here is journaled: a restart loses incomplete series (docs/protocol.md,
 * "Contributions in parts").
 *
 * Rules:
 * - part 1/n opens a series (dropping an incomplete one of the same sender and session);
 *   parts 2..n may arrive in any order after it; a part sent again replaces its earlier copy;
 * - a part k>1 with no series open, or whose n differs from the open series', refuses the
 *   series: the sender is told once, and its later parts are dropped quietly until a new 1/n
 *   (a refused series is kept as a marker without parts, so replies stay bounded);
 * - bounds: n ≤ `maxParts`; the Turtle of one series ≤ `maxBytesPerContribution`; at most
 *   `maxPendingPerSender` series per sender and `maxPending` in all, holding at most
 *   `maxPendingBytes` in all; past a bound the least recently fed series goes (`evicted`).
 */

import { MAX_PARTS, type PartNumber } from "../protocol/part-number.js";

/** Bounds on contributions in parts, per series and over all senders. */
export interface PartsLimits {
  /** Most parts one contribution may come in. */
  maxParts: number;
  /** Most bytes (UTF-8) of Turtle one contribution's parts may hold together. */
  maxBytesPerContribution: number;
  /** Most series, complete or refused-but-remembered, one sender may have open at once. */
  maxPendingPerSender: number;
  /** Most series open at once, over all senders. */
  maxPending: number;
  /** Most bytes of Turtle held in open series, over all senders. */
  maxPendingBytes: number;
}

/**
 * Bytes of Turtle allowed per triple of `mfr:maxTriplesPerContribution` when bounding one
 * contribution's parts. Realistic contributions take 37 bytes per triple abbreviated with
 * `;` and about 130 as N-Triples (measured, see docs/agents.md, "Contributions in parts"); 256 leaves
 * room for long literals and IRIs.
 */
export const BYTES_PER_TRIPLE = 256;

/** The bounds that follow from the configured limits. */
export function partsLimits(maxTriplesPerContribution: number, maxInboundBytes: number): PartsLimits {
  const perContribution = Math.max(maxInboundBytes, maxTriplesPerContribution * BYTES_PER_TRIPLE);
  return { maxParts: MAX_PARTS, maxBytesPerContribution: perContribution, maxPendingPerSender: 4, maxPending: 64, maxPendingBytes: 4 * perContribution };
}

/**
 * One Turtle document that reads as the parts read one by one: parts are joined in order,
 * with the base set back to the session's between them, so that an `@base` in one part does
 * not change how the next part's relative IRIs resolve. Prefixes need no reset: every part
 * is checked alone first, so each prefix a part uses is declared in that part before its use.
 * Blank-node labels are scoped to the contribution: `_:b0` in two parts is one node.
 */
export function joinParts(parts: readonly string[], baseIri: string): string {
  return parts.join(`\n@base <${baseIri}> .\n`);
}

/** Where a series stands when it is dropped or refused: for the sender's answer and the log. */
export interface PendingSummary<T> {
  sessionId: string;
  from: T;
  /** Parts that had arrived. */
  received: number;
  n: number;
}

/** Why a part was refused at the edge. */
export type PartRefusal =
  /** A part k>1 with no series open (part 1 never came, was refused, or a restart lost it). */
  | "no-first-part"
  /** A part k>1 whose n differs from the open series'. */
  | "other-count"
  /** The series would hold more than `maxBytesPerContribution`. */
  | "too-large";

/** What became of one part: waiting for more, complete, or refused. */
export type PartOutcome<T> = (
  | { kind: "waiting"; received: number; n: number; restarted: PendingSummary<T> | undefined }
  | { kind: "complete"; parts: string[]; from: T; restarted: PendingSummary<T> | undefined }
  | { kind: "refused"; reason: PartRefusal; pending: PendingSummary<T> | undefined }
  /** A later part of a refused series: dropped quietly. */
  | { kind: "ignored" }
) & {
  /** Other series dropped to stay within the bounds, least recently fed first. */
  evicted: PendingSummary<T>[];
};

interface Series<T> {
  sessionId: string;
  sender: string;
  n: number;
  from: T;
  parts: Map<number, string>;
  bytes: number;
  /** Told once; later parts are dropped quietly until a new part 1/n. */
  refused: boolean;
}

/** Who a series belongs to: a session and a sender identity (as the core attributes contributions). */
export interface SeriesKey {
  sessionId: string;
  sender: string;
}

/** The open series of parts, by session and sender, bounded in count and bytes; the least recently fed goes first when full. */
export class ContributionAssembler<T> {
  /** In order of the latest part fed: the first is the least recently fed. */
  private readonly series = new Map<string, Series<T>>();
  private heldBytes = 0;

  constructor(readonly limits: PartsLimits) {}

  /** Series open (refused markers included). */
  get size(): number {
    return this.series.size;
  }

  /** Bytes of Turtle held. */
  get bytes(): number {
    return this.heldBytes;
  }

  /** True when this part would be dropped quietly (a later part of a refused series): no need to check it. */
  isQuiet(key: SeriesKey, part: PartNumber): boolean {
    return part.k > 1 && this.series.get(idOf(key))?.refused === true;
  }

  /** Takes one part, already checked on its own; says what became of it and of the series. */
  offer(key: SeriesKey, from: T, part: PartNumber, turtle: string): PartOutcome<T> {
    const id = idOf(key);
    let series = this.series.get(id);
    let restarted: PendingSummary<T> | undefined;
    if (part.k === 1) {
      restarted = series && !series.refused ? summaryOf(series) : undefined;
      series = this.open(key, from, part.n, false);
    } else if (!series) {
      this.open(key, from, part.n, true);
      return { kind: "refused", reason: "no-first-part", pending: undefined, evicted: this.enforceBounds(id) };
    } else if (series.refused) {
      this.touch(id, series);
      return { kind: "ignored", evicted: [] };
    } else if (series.n !== part.n) {
      const pending = summaryOf(series);
      this.open(key, from, part.n, true);
      return { kind: "refused", reason: "other-count", pending, evicted: [] };
    }

    const bytes = Buffer.byteLength(turtle, "utf8");
    const replaced = series.parts.get(part.k);
    const replacedBytes = replaced === undefined ? 0 : Buffer.byteLength(replaced, "utf8");
    if (series.bytes - replacedBytes + bytes > this.limits.maxBytesPerContribution) {
      const pending = series.parts.size > 0 ? summaryOf(series) : undefined;
      this.open(key, from, part.n, true);
      return { kind: "refused", reason: "too-large", pending, evicted: [] };
    }
    series.parts.set(part.k, turtle);
    series.bytes += bytes - replacedBytes;
    this.heldBytes += bytes - replacedBytes;
    series.from = from;
    this.touch(id, series);
    if (series.parts.size === series.n) {
      this.remove(id);
      const parts = Array.from({ length: series.n }, (_, i) => series.parts.get(i + 1) ?? "");
      return { kind: "complete", parts, from, restarted, evicted: [] };
    }
    return { kind: "waiting", received: series.parts.size, n: series.n, restarted, evicted: this.enforceBounds(id) };
  }

  /**
   * A part failed its check: the series is refused (its parts dropped, later parts dropped
   * quietly until a new 1/n). Returns what was pending, if anything.
   */
  refuse(key: SeriesKey, from: T, n: number): PendingSummary<T> | undefined {
    const series = this.series.get(idOf(key));
    const pending = series && !series.refused && series.parts.size > 0 ? summaryOf(series) : undefined;
    this.open(key, from, n, true);
    return pending;
  }

  /** Forgets every series of a session; returns those that held parts (their senders are told). */
  dropSession(sessionId: string): PendingSummary<T>[] {
    const dropped: PendingSummary<T>[] = [];
    for (const [id, series] of this.series) {
      if (series.sessionId !== sessionId) continue;
      if (!series.refused && series.parts.size > 0) dropped.push(summaryOf(series));
      this.remove(id);
    }
    return dropped;
  }

  /** Whether any series of this session is open. */
  hasSession(sessionId: string): boolean {
    for (const series of this.series.values()) if (series.sessionId === sessionId) return true;
    return false;
  }

  private open(key: SeriesKey, from: T, n: number, refused: boolean): Series<T> {
    const id = idOf(key);
    this.remove(id);
    const series: Series<T> = { sessionId: key.sessionId, sender: key.sender, n, from, parts: new Map(), bytes: 0, refused };
    this.series.set(id, series);
    return series;
  }

  private touch(id: string, series: Series<T>): void {
    this.series.delete(id);
    this.series.set(id, series);
  }

  private remove(id: string): void {
    const series = this.series.get(id);
    if (!series) return;
    this.heldBytes -= series.bytes;
    this.series.delete(id);
  }

  /** Drops the least recently fed series (never `keep`) until every bound holds. */
  private enforceBounds(keep: string): PendingSummary<T>[] {
    const evicted: PendingSummary<T>[] = [];
    const kept = this.series.get(keep);
    const evictFirst = (match: (s: Series<T>) => boolean): boolean => {
      for (const [id, series] of this.series) {
        if (id === keep || !match(series)) continue;
        if (!series.refused && series.parts.size > 0) evicted.push(summaryOf(series));
        this.remove(id);
        return true;
      }
      return false;
    };
    if (kept) {
      let own = 0;
      for (const s of this.series.values()) if (s.sender === kept.sender) own++;
      while (own > this.limits.maxPendingPerSender && evictFirst((s) => s.sender === kept.sender)) own--;
    }
    while (this.series.size > this.limits.maxPending) if (!evictFirst(() => true)) break;
    while (this.heldBytes > this.limits.maxPendingBytes) if (!evictFirst((s) => s.bytes > 0)) break;
    return evicted;
  }
}

function idOf(key: SeriesKey): string {
  return `${key.sessionId}\u0000${key.sender}`;
}

function summaryOf<T>(series: Series<T>): PendingSummary<T> {
  return { sessionId: series.sessionId, from: series.from, received: series.parts.size, n: series.n };
}
