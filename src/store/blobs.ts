/**
 * Large texts of a session stored once, by content: a contribution's Turtle, the merged
 * model, its TriG, its formal part as JSON. The model worker, which has these texts anyway,
 * writes them through its own connection (WAL lets a second connection write next to the
 * main one); events, archived sessions and artefacts then hold a `BlobRef` instead of the
 * text, so the main thread never JSON-encodes or writes megabytes (bench/stalls.ts).
 *
 * A blob is written in chunks, each in its own short transaction, so the worker never holds
 * the write lock long enough to make a main-thread append wait. It is durable once the
 * last chunk is committed, which happens before the worker answers, so before any event
 * that refers to it is appended: the journal's order (an input logged before its effects)
 * holds. A crash mid-blob leaves chunks nobody refers to, which go with their session.
 */
import type BetterSqlite3 from "better-sqlite3";
import { createHash } from "node:crypto";

/** Characters per chunk: a transaction of this size commits in a few milliseconds. */
export const BLOB_CHUNK_CHARS = 256 * 1024;

/** The digest a text is stored under (SHA-256 of its UTF-8 bytes, hex). */
export function blobDigest(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** The text cut into chunks, never between the two halves of a surrogate pair (SQLite would store U+FFFD). */
export function blobChunks(text: string, size = BLOB_CHUNK_CHARS): string[] {
  const chunks: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + size);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    chunks.push(text.slice(start, end));
    start = end;
  }
  return chunks.length > 0 ? chunks : [""];
}

/** Writes blobs of one store; used by the model worker on its own connection. */
export class BlobWriter {
  private readonly insert: BetterSqlite3.Statement;
  private readonly complete: BetterSqlite3.Statement;

  constructor(
    db: BetterSqlite3.Database,
    private readonly chunkChars = BLOB_CHUNK_CHARS,
  ) {
    this.insert = db.prepare("INSERT OR REPLACE INTO blob_chunks (session_id, digest, chunk, chunks, content) VALUES (?, ?, ?, ?, ?)");
    this.complete = db.prepare("SELECT count(*) AS n, max(chunks) AS chunks FROM blob_chunks WHERE session_id = ? AND digest = ?");
  }

  /**
   * Stores `text` for the session (once: a blob already whole is not written again) and
   * returns its digest; pass `digest` when the caller has computed it already.
   */
  write(sessionId: string, text: string, digest: string = blobDigest(text)): string {
    const have = this.complete.get(sessionId, digest) as { n: number; chunks: number | null };
    if (have.chunks !== null && have.n === have.chunks) return digest;
    const chunks = blobChunks(text, this.chunkChars);
    // One transaction per chunk (better-sqlite3 autocommits each run): the write lock is
    // held for one chunk at a time, and the main connection's appends slip in between.
    chunks.forEach((content, index) => this.insert.run(sessionId, digest, index, chunks.length, content));
    return digest;
  }

  /** Stores a value as JSON text; read back with `as: "json"`. */
  writeJson(sessionId: string, value: unknown): string {
    return this.write(sessionId, JSON.stringify(value));
  }
}

/** Reads blobs back (the store, for replay, restore, export and archived sessions). */
export class BlobReader {
  private readonly chunks: BetterSqlite3.Statement;

  constructor(db: BetterSqlite3.Database) {
    this.chunks = db.prepare("SELECT chunk, chunks, content FROM blob_chunks WHERE session_id = ? AND digest = ? ORDER BY chunk");
  }

  /** The text, or undefined when the blob is missing or not whole. */
  text(sessionId: string, digest: string): string | undefined {
    const rows = this.chunks.all(sessionId, digest) as Array<{ chunk: number; chunks: number; content: string }>;
    const expected = rows[0]?.chunks;
    if (expected === undefined || rows.length !== expected || rows.some((r, i) => r.chunk !== i)) return undefined;
    return rows.map((r) => r.content).join("");
  }
}
