import type { Broadcast, Effect } from "./types.js";

/** Collects the effects of one step; every rule writes through it. */
export class Step {
  readonly effects: Effect[] = [];
  constructor(readonly now: number) {}
  emit(effect: Effect): void {
    this.effects.push(effect);
  }
  tell(nick: string, text: string): void {
    this.emit({ kind: "tell", nick, text });
  }
  say(text: string, room: "primary" | "log" = "primary"): void {
    this.emit({ kind: "say", room, text });
  }
  broadcast(message: Broadcast, body: string): void {
    this.emit({ kind: "broadcast", message, body });
  }
  log(level: "debug" | "info" | "warn", msg: string, data: Record<string, unknown>): void {
    this.emit({ kind: "log", level, msg, data });
  }
}
