import type { Participant } from "./types.js";
import type { Broadcast, Effect } from "./step-io.js";

/** Collects the effects of one step; every rule writes through it. */
export class Step {
  readonly effects: Effect[] = [];
  constructor(readonly now: number) {}
  /** Records an effect as it is; the helpers below build the common ones. Effects keep their order. */
  emit(effect: Effect): void {
    this.effects.push(effect);
  }
  /** An answer to a person, in the room (`nick: text`). */
  tell(nick: string, text: string): void {
    this.emit({ kind: "tell", nick, text });
  }
  /** An answer to an agent, as a private message: never a room line that starts with its nick. */
  tellAgent(to: Participant, text: string): void {
    this.emit({ kind: "tell", nick: to.nick, text, privately: true, ...(to.room ? { room: to.room } : {}) });
  }
  /** A line of the coordinator's own in the primary room, or in the log room (detail, not addressed to anyone). */
  say(text: string, room: "primary" | "log" = "primary"): void {
    this.emit({ kind: "say", room, text });
  }
  /** The debate invitation: said in the primary room without the status mark, since Chairs must read it. */
  invite(text: string): void {
    this.emit({ kind: "say", room: "primary", text, forChairs: true });
  }
  /** A protocol message; `body` is the line people see, left out where the next line says it. */
  broadcast(message: Broadcast, body: string | undefined): void {
    this.emit({ kind: "broadcast", message, body });
  }
  /** A log record, an effect like any other: the core writes nothing itself; the shell logs it when carrying out the step. */
  log(level: "debug" | "info" | "warn", msg: string, data: Record<string, unknown>): void {
    this.emit({ kind: "log", level, msg, data });
  }
}
