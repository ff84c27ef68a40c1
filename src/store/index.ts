/**
 * Durable sessions: the SQLite-backed input log, archive, artefacts and retention
 * (SessionStore), export of one session to files (or of its formal model as PDDL), and
 * replay through the pure core.
 */
export { SessionStore, DATABASE_FILE } from "./session-store.js";
export type { OpenOptions } from "./session-store.js";
export { StoreError } from "./errors.js";
export type { StoreErrorReason } from "./errors.js";
export { LOCK_FILE } from "./process-lock.js";
export { SCHEMA_VERSION } from "./schema.js";
export type { HeardRecord } from "../host/heard.js";
export { archiveRecordOf } from "../host/journal-records.js";
export type { ArchivedSession, ArchivedSummary, Artefact, ArtefactKind, ListArchivedOptions, PruneOptions, SentRecord, StoredEvent } from "../host/journal-records.js";
export { exportSession, ExportError } from "./export.js";
export { exportSessionPddl } from "./export-pddl.js";
export { backupStore, BackupError } from "./backup.js";
export type { BackupResult } from "./backup.js";
export type { ExportResult, ExportSource } from "./export.js";
export { contributionGraphIri, contributionsTrig } from "./model-trig.js";
export { replayEvents, sessionFromEvents } from "./replay.js";
