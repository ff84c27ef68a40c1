/**
 * Model parts that arrive before their SolutionRequest (docs/protocol.md: a model too large for one
 * stanza comes as ModelFirstRDF messages with `modelPart` = "k/n"). Kept per sender and
 * session, bounded in sessions and bytes; a new part 1/n starts the model over.
 */
import { readPartNumber, type PartNumber } from "../../protocol/part-number.js";

export interface PartsLimits {
  /** Sessions whose parts are kept at once; the oldest is dropped past this. */
  maxSessions: number;
  /** Bytes of Turtle kept for one model. */
  maxModelBytes: number;
}

export const DEFAULT_PARTS_LIMITS: PartsLimits = { maxSessions: 16, maxModelBytes: 64 * 1024 * 1024 };

interface PendingModel {
  total: number;
  parts: Map<number, string>;
  bytes: number;
}

/** `"k/n"` with 1 <= k <= n (at most MAX_PARTS); null for anything else. */
export function readPartLabel(label: string | undefined): PartNumber | null {
  const read = readPartNumber(label ?? "");
  return read.ok ? read.part : null;
}

export class ModelPartsInbox {
  private readonly pending = new Map<string, PendingModel>();

  constructor(private readonly limits: PartsLimits = DEFAULT_PARTS_LIMITS) {}

  /** Keeps one part; false when it was refused (bad label, over the byte bound). */
  add(sender: string, sessionId: string, label: string | undefined, turtle: string): boolean {
    const part = readPartLabel(label);
    if (!part) return false;
    const key = keyOf(sender, sessionId);
    let model = this.pending.get(key);
    if (part.k === 1 || !model || model.total !== part.n) {
      model = { total: part.n, parts: new Map(), bytes: 0 };
      this.pending.delete(key);
      this.pending.set(key, model);
      this.evictOldest();
    }
    const bytes = Buffer.byteLength(turtle, "utf8") - Buffer.byteLength(model.parts.get(part.k) ?? "", "utf8");
    if (model.bytes + bytes > this.limits.maxModelBytes) {
      this.pending.delete(key);
      return false;
    }
    model.parts.set(part.k, turtle);
    model.bytes += bytes;
    return true;
  }

  /** The parts 1..n in order once all have arrived (and forgets them); null while some are missing. */
  take(sender: string, sessionId: string, expected: number): string[] | null {
    const key = keyOf(sender, sessionId);
    const model = this.pending.get(key);
    if (!model || model.total !== expected || model.parts.size !== expected) return null;
    this.pending.delete(key);
    return Array.from({ length: expected }, (_, i) => model.parts.get(i + 1) ?? "");
  }

  private evictOldest(): void {
    while (this.pending.size > this.limits.maxSessions) {
      const oldest = this.pending.keys().next().value;
      if (oldest === undefined) return;
      this.pending.delete(oldest);
    }
  }
}

function keyOf(sender: string, sessionId: string): string {
  return `${sender.toLowerCase()}\u0000${sessionId}`;
}
