import type { Broadcast, Effect, Participant } from "./types.js";

/** Collects the effects of one step; every rule writes through it. */
export class Step {
  readonly effects: Effect[] = [];
  constructor(readonly now: number) {}
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
  say(text: string, room: "primary" | "log" = "primary"): void {
    this.emit({ kind: "say", room, text });
  }
  /** A protocol message; `body` is the line people see, left out where the next line says it. */
  broadcast(message: Broadcast, body: string | undefined): void {
    this.emit({ kind: "broadcast", message, body });
  }
  log(level: "debug" | "info" | "warn", msg: string, data: Record<string, unknown>): void {
    this.emit({ kind: "log", level, msg, data });
  }
}
