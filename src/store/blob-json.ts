/**
 * JSON for the store's rows with large values left out: a value the model worker already
 * stored as a blob (blobs.ts) is written as `{"$mfrBlob": digest, "as": form}`, and put
 * back in its place when the row is read. Which values are stored is known per session
 * (`DurableValues`), by the text itself or by the object: the host is told when the worker
 * answers. A value nobody told us about is written inline, as before: slower, never wrong.
 */
import { worthABlob, type BlobForm, type BlobRef } from "./blobs.js";

const MARKER = "$mfrBlob";

/** The values of each session already stored as blobs. */
export class DurableValues {
  private readonly sessions = new Map<string, { texts: Map<string, BlobRef>; objects: WeakMap<object, BlobRef> }>();

  /** Notes that `value` (a text, or an object stored as JSON) of the session is the blob `ref`. */
  adopt(sessionId: string, value: string | object, ref: BlobRef): void {
    if (typeof value === "string" && !worthABlob(value)) return;
    let own = this.sessions.get(sessionId);
    if (!own) {
      own = { texts: new Map(), objects: new WeakMap() };
      this.sessions.set(sessionId, own);
    }
    if (typeof value === "string") own.texts.set(value, ref);
    else own.objects.set(value, ref);
  }

  /** Lets go of a session's values (it was archived). */
  forget(sessionId: string): void {
    this.sessions.delete(sessionId);
  }

  /** JSON of `value` with the session's stored values as references. */
  encode(sessionId: string, value: unknown): string {
    const own = this.sessions.get(sessionId);
    if (!own) return JSON.stringify(value);
    const { texts, objects } = own;
    return JSON.stringify(value, (_key, v: unknown) => {
      const ref = typeof v === "string" ? (worthABlob(v) ? texts.get(v) : undefined) : typeof v === "object" && v !== null ? objects.get(v) : undefined;
      return ref ? { [MARKER]: ref.digest, as: ref.as } : v;
    });
  }
}

/** Reads one blob's text; undefined when it is missing. */
export type ReadBlob = (sessionId: string, digest: string) => string | undefined;

/**
 * Parses a row written by `encode`, reading referenced blobs back. `onBlob` hears each value
 * read back (so a restored session's values are known as stored again). Throws when a blob
 * is missing: the row cannot be rebuilt.
 */
export function decodeWithBlobs<T>(sessionId: string, text: string, read: ReadBlob, onBlob?: (value: string | object, ref: BlobRef) => void): T {
  // Most rows hold no reference; a reviver would slow their parsing down for nothing.
  if (!text.includes(`"${MARKER}"`)) return JSON.parse(text) as T;
  return JSON.parse(text, (_key, v: unknown) => {
    const ref = refOf(v);
    if (!ref) return v;
    const content = read(sessionId, ref.digest);
    if (content === undefined) throw new MissingBlobError(ref.digest);
    const value = ref.as === "json" ? (JSON.parse(content) as unknown) : content;
    if (value !== null && (typeof value === "string" || typeof value === "object")) onBlob?.(value, ref);
    return value;
  }) as T;
}

export class MissingBlobError extends Error {
  override readonly name = "MissingBlobError";
  constructor(readonly digest: string) {
    super(`it refers to stored text ${digest.slice(0, 12)}…, which is missing`);
  }
}

function refOf(v: unknown): BlobRef | undefined {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  const digest = o[MARKER];
  const as = o.as;
  if (typeof digest !== "string" || (as !== "text" && as !== "json") || Object.keys(o).length !== 2) return undefined;
  return { digest, as: as satisfies BlobForm };
}
