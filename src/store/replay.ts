/**
 * Rebuilding sessions from logged inputs with the pure core, exactly as the running
 * coordinator built them: each input is stepped with the `now` it was logged at. Effects
 * are dropped; whoever replays decides what still needs doing (the host re-arms deadlines).
 */
import { replay } from "../session/replay.js";
import { emptySessions } from "../session/step.js";
import type { Session, SessionId } from "../session/types.js";
import type { Sessions } from "../session/step-io.js";
import type { StoredEvent } from "../host/journal-records.js";

/**
 * The sessions the events build, stepped from empty in the order given (the store's: by
 * sequence number). Pure, like the core; an input the core throws on is thrown, not skipped.
 */
export function replayEvents(events: Iterable<Pick<StoredEvent, "input" | "at">>): Sessions {
  return replay(emptySessions(), events).state;
}

/** One session as its events leave it; undefined if they never start it. */
export function sessionFromEvents(sessionId: SessionId, events: Iterable<StoredEvent>): Session | undefined {
  const own = [...events].filter((e) => e.sessionId === sessionId);
  return replayEvents(own).byId[sessionId];
}
