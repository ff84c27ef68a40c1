/**
 * Each room message taken in once, however often the room gives it (a history after an
 * absence overlapping what was heard live, a server that sends it twice): a message is
 * first taken when neither the log of what was heard (host/heard.ts) nor the messages being
 * handled right now know any of its keys.
 */
import type { Logger } from "pino";
import type { Heard, HeardLog } from "../host/heard.js";

/** Keeps the rule that a room message is taken in once; see the top of this file. */
export class HeardOnce {
  /** Room messages being handled, by key: the same message given twice at once is taken once. */
  private readonly inFlight = new Set<string>();

  constructor(
    private readonly heard: HeardLog,
    private readonly log: Logger,
    /** A read-only store records nothing (`isReadonly`). */
    private readonly readonly: () => boolean,
  ) {}

  /** False when the message was taken in before, or is being taken in now; true takes it (until `doneWith`). */
  firstTake(heard: Heard): boolean {
    if (heard.keys.some((k) => this.inFlight.has(`${heard.room}\u0000${k}`))) return false;
    try {
      if (this.heard.heardBefore(heard.room, heard.keys)) return false;
    } catch (err) {
      // A store that cannot be read says so elsewhere (readiness); the message is taken.
      this.log.warn({ err, room: heard.room }, "could not look up whether a message was taken in before");
    }
    for (const k of heard.keys) this.inFlight.add(`${heard.room}\u0000${k}`);
    return true;
  }

  /** Done handling: a message that became no input (a command answered, chatter) is recorded on its own. */
  doneWith(heard: Heard): void {
    for (const k of heard.keys) this.inFlight.delete(`${heard.room}\u0000${k}`);
    if (heard.recorded || this.readonly()) return;
    try {
      this.heard.recordHeard({ room: heard.room, keys: heard.keys, at: heard.at });
      heard.recorded = true;
    } catch (err) {
      this.log.warn({ err, room: heard.room }, "could not note a message as taken in");
    }
  }
}
