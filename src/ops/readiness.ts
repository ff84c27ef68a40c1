/**
 * Whether the coordinator can do its work now, and if not, why: connected to the XMPP
 * server, in every room it stays in (the primary room, the log room, the phase rooms), and
 * a store that takes writes. Each reason is one line an operator can act on; the list is
 * what GET /readyz answers with. Warnings (a room that does not keep agents' protocol
 * messages) are said beside them and never make it not ready.
 */

export interface RoomPresence {
  jid: string;
  joined: boolean;
}

/** What readiness is decided from, gathered by the coordinator at each probe. */
export interface ReadinessFacts {
  connected: boolean;
  /** Every room the coordinator stays in (empty before it has entered any). */
  rooms: readonly RoomPresence[];
  /** Why the store would not take the next input; undefined when it would, or with no store. */
  storeProblem: string | undefined;
  /** Whether each protocol room keeps agents' protocol messages (catch-up/absences.ts); a room that does not is a warning. */
  keeping?: ReadonlyArray<{ keeping: "kept" | "not kept" | "unknown"; note: string }>;
}

export interface Readiness {
  ready: boolean;
  reasons: string[];
  /** What works but less well than it could, and why; never makes it not ready. */
  warnings?: string[];
}

export function readinessOf(facts: ReadinessFacts): Readiness {
  const reasons: string[] = [];
  if (!facts.connected) reasons.push("not connected to the XMPP server");
  if (facts.rooms.length === 0) reasons.push("not in any room yet (starting)");
  for (const room of facts.rooms) if (!room.joined) reasons.push(`not in room ${room.jid}`);
  if (facts.storeProblem !== undefined) reasons.push(facts.storeProblem);
  const warnings = (facts.keeping ?? []).filter((k) => k.keeping === "not kept").map((k) => k.note);
  return { ready: reasons.length === 0, reasons, ...(warnings.length > 0 ? { warnings } : {}) };
}
