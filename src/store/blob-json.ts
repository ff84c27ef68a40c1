/**
 * JSON for the store's rows with large values left out: a value the model worker already
 * stored as a blob (blobs.ts) is written as `{"$mfrBlob": digest, "as": form}`, and put
 * back in its place when the row is read. Which values are stored is known per session
 * (`DurableValues`), by the text itself or by the object: the host is told when the worker
 * answers. A value nobody told us about is written inline, as before: slower, never wrong.
 *
 * An archived session also refers to the texts its events already hold (a contribution's
 * Turtle, the model): `{"$mfrEvent": seq, "path": [...]}` is the string at that path in event
 * seq's input. Written inline, they were half of what archiving a ~1k-triple session wrote
 * (85k characters, bench/load.ts). Events and their archived session are pruned together.
 */
import { worthABlob, type BlobForm, type BlobRef } from "../host/journal-records.js";

const MARKER = "$mfrBlob";
const EVENT_MARKER = "$mfrEvent";

/**
 * Texts from this many characters on are referred to by an archived session instead of
 * repeated; shorter ones cost less inline than the reference and the lookup.
 */
export const EVENT_TEXT_MIN_CHARS = 1024;

/** Where a text an event holds sits: the event's sequence number and the path to it in its input. */
export interface EventTextRef {
  seq: number;
  path: ReadonlyArray<string | number>;
}

/** How deep into an input its texts are looked for (a contribution's is at depth 1, the model at 3). */
const EVENT_TEXT_DEPTH = 4;
/** Longer arrays are not looked into (findings, plans): their texts are short, and the walk would grow with the model. */
const EVENT_TEXT_ARRAY = 16;

/** The values of each session already stored: as blobs, or in the session's events. */
export class DurableValues {
  private readonly blobs = new Map<string, { texts: Map<string, BlobRef>; objects: WeakMap<object, BlobRef> }>();
  /**
   * Long texts of each session's events, for its archive only. Kept apart from `blobs` so that
   * an event of a session with no blob is still encoded without a replacer (most appends).
   */
  private readonly inEvents = new Map<string, Map<string, EventTextRef>>();

  /** Notes that `value` (a text, or an object stored as JSON) of the session is the blob `ref`. */
  adopt(sessionId: string, value: string | object, ref: BlobRef): void {
    if (typeof value === "string" && !worthABlob(value)) return;
    let own = this.blobs.get(sessionId);
    if (!own) {
      own = { texts: new Map(), objects: new WeakMap() };
      this.blobs.set(sessionId, own);
    }
    if (typeof value === "string") own.texts.set(value, ref);
    else own.objects.set(value, ref);
  }

  /**
   * Notes the long texts of an input stored as event `seq`, for the session's archive to
   * refer to. The first event holding a text is the one referred to. Texts stored as blobs
   * are left to their blob reference.
   */
  noteEventTexts(sessionId: string, seq: number, input: unknown): void {
    const blobs = this.blobs.get(sessionId);
    let texts = this.inEvents.get(sessionId);
    const visit = (value: unknown, path: Array<string | number>): void => {
      if (typeof value === "string") {
        if (value.length < EVENT_TEXT_MIN_CHARS || blobs?.texts.has(value) || texts?.has(value)) return;
        if (!texts) {
          texts = new Map();
          this.inEvents.set(sessionId, texts);
        }
        texts.set(value, { seq, path: [...path] });
        return;
      }
      if (typeof value !== "object" || value === null || path.length >= EVENT_TEXT_DEPTH || blobs?.objects.has(value)) return;
      if (Array.isArray(value)) {
        if (value.length <= EVENT_TEXT_ARRAY) value.forEach((item, i) => visit(item, [...path, i]));
        return;
      }
      for (const [key, item] of Object.entries(value)) visit(item, [...path, key]);
    };
    visit(input, []);
  }

  /** Lets go of a session's values (it was archived). */
  forget(sessionId: string): void {
    this.blobs.delete(sessionId);
    this.inEvents.delete(sessionId);
  }

  /**
   * JSON of `value` with the session's stored values as references; with `eventTexts`, also
   * the texts its events hold (for the archived session: an event never refers to another).
   */
  encode(sessionId: string, value: unknown, options: { eventTexts?: boolean } = {}): string {
    const own = this.blobs.get(sessionId);
    const inEvents = options.eventTexts === true ? this.inEvents.get(sessionId) : undefined;
    if (!own && !inEvents) {
      // Most rows: no reference to write, and no key that could be taken for one.
      const plain = JSON.stringify(value);
      return LOOKS_MARKED.test(plain) ? JSON.stringify(value, (_key, v: unknown) => keysEscaped(v)) : plain;
    }
    return JSON.stringify(value, (_key, v: unknown) => {
      if (typeof v === "string") {
        const blob = own && worthABlob(v) ? own.texts.get(v) : undefined;
        if (blob) return { [MARKER]: blob.digest, as: blob.as };
        const inEvent = inEvents !== undefined && v.length >= EVENT_TEXT_MIN_CHARS ? inEvents.get(v) : undefined;
        return inEvent ? { [EVENT_MARKER]: inEvent.seq, path: inEvent.path } : v;
      }
      const ref = own && typeof v === "object" && v !== null ? own.objects.get(v) : undefined;
      return ref ? { [MARKER]: ref.digest, as: ref.as } : keysEscaped(v);
    });
  }
}

/**
 * Keys a reference could be mistaken for. A value from the network (a peer's proposal keeps
 * fields the coordinator does not know) may hold an object keyed `$mfrBlob` or `$mfrEvent`:
 * on the way in such keys get one more `$`, and on the way out lose it, so only the
 * references written here are read as references.
 */
const MARKED_KEY = /^\$+mfr/;
const ESCAPED_KEY = /^\$\$+mfr/;
/** A serialisation that may hold such a key (a string value may match too: then merely the slower path). */
const LOOKS_MARKED = /"\$+mfr/;

const DOLLAR = 0x24;

/** Whether a key of `o` matches: looked at without allocating, since most objects have no key starting with `$`. */
function hasKey(o: object, pattern: RegExp): boolean {
  for (const k in o) if (k.charCodeAt(0) === DOLLAR && pattern.test(k)) return true;
  return false;
}

function keysEscaped(v: unknown): unknown {
  if (typeof v !== "object" || v === null || Array.isArray(v) || !hasKey(v, MARKED_KEY)) return v;
  return Object.fromEntries(Object.entries(v).map(([k, item]) => [MARKED_KEY.test(k) ? `$${k}` : k, item]));
}

function keysUnescaped(v: unknown): unknown {
  if (typeof v !== "object" || v === null || Array.isArray(v) || !hasKey(v, ESCAPED_KEY)) return v;
  return Object.fromEntries(Object.entries(v).map(([k, item]) => [ESCAPED_KEY.test(k) ? k.slice(1) : k, item]));
}

/** Reads one blob's text; undefined when it is missing. */
export type ReadBlob = (sessionId: string, digest: string) => string | undefined;

/** Reads one event's input of the session, decoded; undefined when there is no such event. */
export type ReadEventInput = (sessionId: string, seq: number) => unknown;

/**
 * Parses a row written by `encode`, reading referenced blobs (and, given `readEvent`, event
 * texts) back. `onBlob` hears each blob value read back (so a restored session's values are
 * known as stored again). Throws when a referenced blob or text is missing: the row cannot be
 * rebuilt.
 */
export function decodeWithBlobs<T>(sessionId: string, text: string, read: ReadBlob, onBlob?: (value: string | object, ref: BlobRef) => void, readEvent?: ReadEventInput): T {
  // Most rows hold no reference and no escaped key; a reviver would slow their parsing down for nothing.
  if (!LOOKS_MARKED.test(text)) return JSON.parse(text) as T;
  return JSON.parse(text, (_key, v: unknown) => {
    const inEvent = eventRefOf(v);
    if (inEvent) {
      if (!readEvent) throw new MissingEventTextError(inEvent);
      return eventText(sessionId, inEvent, readEvent);
    }
    const ref = refOf(v);
    if (!ref) return keysUnescaped(v);
    const content = read(sessionId, ref.digest);
    if (content === undefined) throw new MissingBlobError(ref.digest);
    const value = ref.as === "json" ? (JSON.parse(content) as unknown) : content;
    if (value !== null && (typeof value === "string" || typeof value === "object")) onBlob?.(value, ref);
    return value;
  }) as T;
}

function eventText(sessionId: string, ref: EventTextRef, readEvent: ReadEventInput): string {
  let value: unknown = readEvent(sessionId, ref.seq);
  for (const step of ref.path) {
    value = typeof value === "object" && value !== null ? (value as Record<string | number, unknown>)[step] : undefined;
  }
  if (typeof value !== "string") throw new MissingEventTextError(ref);
  return value;
}

/** A row refers to a text in one of its session's events that is not there; SessionStore reports it as a corrupt store. */
export class MissingEventTextError extends Error {
  override readonly name = "MissingEventTextError";
  constructor(readonly ref: EventTextRef) {
    super(`it refers to the text at ${ref.path.join(".")} of event ${ref.seq}, which is missing`);
  }
}

/** A row refers to a blob (by digest) that is not stored; SessionStore reports it as a corrupt store. */
export class MissingBlobError extends Error {
  override readonly name = "MissingBlobError";
  constructor(readonly digest: string) {
    super(`it refers to stored text ${digest.slice(0, 12)}…, which is missing`);
  }
}

function eventRefOf(v: unknown): EventTextRef | undefined {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  const seq = o[EVENT_MARKER];
  const path = o.path;
  if (typeof seq !== "number" || !Number.isSafeInteger(seq) || !Array.isArray(path) || Object.keys(o).length !== 2) return undefined;
  if (!path.every((step) => typeof step === "string" || (typeof step === "number" && Number.isSafeInteger(step)))) return undefined;
  return { seq, path: path as Array<string | number> };
}

function refOf(v: unknown): BlobRef | undefined {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  const digest = o[MARKER];
  const as = o.as;
  if (typeof digest !== "string" || (as !== "text" && as !== "json") || Object.keys(o).length !== 2) return undefined;
  return { digest, as: as satisfies BlobForm };
}
