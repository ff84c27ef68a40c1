/**
 * The artefacts of SessionStore, on one open database (the artefacts table): what export
 * needs that the inputs do not carry (the merged TriG, validation reports), all kept, in
 * order. An artefact's content is in its row, or in a blob the model worker already wrote
 * (then the row names its digest); one whose blob is missing reads as a corrupt store.
 * Writes are the caller's to guard.
 */
import type BetterSqlite3 from "better-sqlite3";
import type { SessionId } from "../session/types.js";
import type { Artefact, ArtefactKind } from "../host/journal-records.js";
import { corrupted } from "./errors.js";
import type { StoredValues } from "./stored-values.js";

/** The artefacts of one store (see the header). */
export class Artefacts {
  private readonly save: BetterSqlite3.Statement;
  private readonly saveBlob: BetterSqlite3.Statement;
  private readonly list: BetterSqlite3.Statement;

  constructor(
    db: BetterSqlite3.Database,
    /** The database file, for messages. */
    private readonly path: string,
    private readonly values: StoredValues,
  ) {
    this.save = db.prepare("INSERT INTO artefacts (session_id, kind, at, content) VALUES (@sessionId, @kind, @at, @content)");
    this.saveBlob = db.prepare("INSERT INTO artefacts (session_id, kind, at, content, blob) VALUES (@sessionId, @kind, @at, '', @digest)");
    this.list = db.prepare("SELECT id, session_id, kind, at, content, blob FROM artefacts WHERE session_id = @sessionId AND (@kind IS NULL OR kind = @kind) ORDER BY id");
  }

  /** Keeps one artefact with its content; returns its id. */
  add(sessionId: SessionId, kind: ArtefactKind, at: number, content: string): number {
    return Number(this.save.run({ sessionId, kind, at, content }).lastInsertRowid);
  }

  /** Keeps one artefact whose content is the blob `digest` (a text); returns its id. */
  addBlob(sessionId: SessionId, kind: ArtefactKind, at: number, digest: string): number {
    return Number(this.saveBlob.run({ sessionId, kind, at, digest }).lastInsertRowid);
  }

  /** The session's artefacts, oldest first; only those of one kind if given. */
  of(sessionId: SessionId, kind?: ArtefactKind): Artefact[] {
    const rows = this.list.all({ sessionId, kind: kind ?? null }) as Array<{ id: number; session_id: string; kind: string; at: number; content: string; blob: string | null }>;
    return rows.map((r) => {
      const content = r.blob === null ? r.content : this.values.blobText(r.session_id, r.blob);
      if (content === undefined) throw corrupted(this.path, `artefact ${r.id} refers to stored text ${r.blob?.slice(0, 12) ?? ""}…, which is missing`);
      return { id: r.id, sessionId: r.session_id, kind: r.kind, at: r.at, content };
    });
  }
}
