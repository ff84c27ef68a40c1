/**
 * How SessionStore's rows hold a session's values, on one open database: as JSON in which
 * large values are references (to blobs the model worker wrote, blobs.ts; or to texts the
 * session's own events hold, blob-json.ts), written with what is known to be stored already
 * and read back with those references resolved. The rule kept here: a row that does not
 * parse, or refers to a value that is not there, reads as a corrupt store (a StoreError
 * naming the row), since only this store writes them.
 */
import type { SessionId } from "../session/types.js";
import { corrupted } from "./errors.js";
import type { BlobReader } from "./blobs.js";
import type { BlobRef } from "../host/journal-records.js";
import { decodeWithBlobs, DurableValues, MissingBlobError, MissingEventTextError, type ReadEventInput } from "./blob-json.js";

/** The values of live sessions already stored, and the reading back of rows that refer to them (see the header). */
export class StoredValues {
  /** Values of live sessions the model worker already stored as blobs: rows refer to them. */
  private readonly durable = new DurableValues();

  constructor(
    /** The database file, for messages. */
    private readonly path: string,
    private readonly blobs: BlobReader,
  ) {}

  /** A value of the session as a row holds it: JSON, what is stored already as a reference. */
  encode(sessionId: SessionId, value: unknown, options?: { eventTexts?: boolean }): string {
    return this.durable.encode(sessionId, value, options);
  }

  /** Notes that `value` of the session is already stored as the blob `ref`. */
  adopt(sessionId: SessionId, value: string | object, ref: BlobRef): void {
    this.durable.adopt(sessionId, value, ref);
  }

  /** Notes the texts an input of the session holds, in its event `seq` (the archive refers to them). */
  noteEventTexts(sessionId: SessionId, seq: number, input: unknown): void {
    this.durable.noteEventTexts(sessionId, seq, input);
  }

  /** Lets go of a session's values (it was archived). */
  forget(sessionId: SessionId): void {
    this.durable.forget(sessionId);
  }

  /** A blob's text; undefined when it is missing. */
  blobText(sessionId: SessionId, digest: string): string | undefined {
    return this.blobs.text(sessionId, digest);
  }

  /**
   * A row's value, its references resolved; `what` names the row in the error a damaged or
   * edited one throws. With `adopt`, the values read back are noted as stored (a live
   * session's rows keep referring to them).
   */
  decode<T>(sessionId: SessionId, text: string, what: string, adopt = false, readEvent?: ReadEventInput): T {
    try {
      const read = (id: string, digest: string): string | undefined => this.blobs.text(id, digest);
      return decodeWithBlobs<T>(sessionId, text, read, adopt ? (value, ref) => this.durable.adopt(sessionId, value, ref) : undefined, readEvent);
    } catch (error) {
      if (error instanceof MissingBlobError || error instanceof MissingEventTextError) throw corrupted(this.path, `${what}: ${error.message}`, error);
      throw corrupted(this.path, `${what} is not valid JSON`, error);
    }
  }
}
