/**
 * What an export says about where a session ended: its final status (or the phase it is
 * still in), and every instant both as the epoch milliseconds the log keeps and as ISO 8601
 * UTC, so an operator reads a file without converting numbers and a program keeps exact values.
 */
import type { CompletionStatus, Phase, Session, SessionId } from "../session/types.js";

/** The session's standing at export time; `status` is null while it is still running. */
export interface ExportedStatus {
  status: CompletionStatus | null;
  phase: Phase | "unknown";
  reason: string | null;
  startedAt: number | null;
  startedAtIso: string | null;
  completedAt: number | null;
  completedAtIso: string | null;
}

/** ISO 8601 in UTC with milliseconds, e.g. "2026-11-22T10:15:00.000Z". */
export function isoTime(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

/** The session's standing for an export: status, phase and instants (ms and ISO); every field null (phase `unknown`) without a session. */
export function exportedStatusOf(session: Session | undefined): ExportedStatus {
  const completion = session?.completion ?? null;
  return {
    status: completion?.status ?? null,
    phase: session?.phase ?? "unknown",
    reason: completion?.reason ?? null,
    startedAt: session?.startedAt ?? null,
    startedAtIso: session ? isoTime(session.startedAt) : null,
    completedAt: completion?.at ?? null,
    completedAtIso: completion ? isoTime(completion.at) : null,
  };
}

/** The one line the CLI prints about the session it exported. */
export function statusLine(sessionId: SessionId, s: ExportedStatus): string {
  if (s.status !== null) {
    return `session ${sessionId}: ${s.status} at ${s.completedAtIso ?? "?"}${s.reason ? ` (${s.reason})` : ""}`;
  }
  if (s.phase === "unknown") return `session ${sessionId}: its start was not logged, so its status is unknown`;
  return `session ${sessionId}: still running (${s.phase}), started at ${s.startedAtIso ?? "?"}`;
}
