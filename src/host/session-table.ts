/**
 * The live sessions as the host holds them: one record, read by every part of the host and
 * changed only by the host's own steps, restore and archiving.
 *
 * The rule it keeps: the record is changed in place, never copied per input (a copy per input
 * grows with the live sessions), and a restore replaces it whole.
 */
import { emptySessions, sessionIn } from "../session/step.js";
import type { Session } from "../session/types.js";
import type { Sessions } from "../session/step-io.js";

/** Completed sessions kept in memory for mfr-status/mfr-list when there is no journal. */
export const COMPLETED_KEPT = 200;

/** The one record of sessions in memory, and the ways the host reads it. */
export class SessionTable {
  private record: Sessions = emptySessions();

  /** The live record itself, for reading: the host changes it in place. */
  get state(): Sessions {
    return this.record;
  }

  /** The session with this id, if it is in memory (live, or completed and not yet archived). */
  get(id: string): Session | undefined {
    return sessionIn(this.record, id);
  }

  /** Every session in memory, completed ones included. */
  all(): Session[] {
    return Object.values(this.record.byId);
  }

  /** Sessions not yet complete. */
  live(): Session[] {
    return this.all().filter((s) => s.phase !== "complete");
  }

  /** The session as a step left it. */
  put(session: Session): void {
    this.record.byId[session.id] = session;
  }

  /** A session leaves memory (archived, or forgotten). */
  remove(id: string): void {
    delete this.record.byId[id];
  }

  /** The sessions a restore rebuilt take the place of whatever was held. */
  replace(state: Sessions): void {
    this.record = state;
  }

  /** Bounds memory when sessions are not archived elsewhere: the oldest completed ones go, beyond `kept`. */
  forgetOldCompleted(kept = COMPLETED_KEPT): void {
    const completed = this.all()
      .filter((s) => s.phase === "complete")
      .sort((a, b) => (a.completion?.at ?? 0) - (b.completion?.at ?? 0));
    if (completed.length <= kept) return;
    for (const s of completed.slice(0, completed.length - kept)) this.remove(s.id);
  }
}
