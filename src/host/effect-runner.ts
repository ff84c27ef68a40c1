/**
 * Carries out the effects one step of the core asked for: messages to the outbox, deadlines
 * to the timers, analyses to the model work, a finished session to the journal, log lines.
 *
 * The rules it keeps: a step's messages are queued in the order the core produced them, each
 * with its place among the step's stanzas when the step was logged (so a replay renders the
 * same places); messages are queued before anything else the step asks for.
 */
import type { Logger } from "pino";
import type { Effect } from "../session/step-io.js";
import { renderEffects, type RenderContext } from "./outgoing.js";
import type { Outbox } from "./outbox.js";

/** The deadlines a step may arm or clear (DeadlineTimers). */
export interface Deadlines {
  /** Arms the session's one deadline for `at`, replacing the one it had. */
  schedule(sessionId: string, at: number): void;
  /** Clears the session's deadline. */
  cancel(sessionId: string): void;
}

/** What the effect runner hands on, beyond the outbox. */
export interface EffectRunnerOptions {
  /** The rooms and stanza limit a step's messages are rendered for (the same as replay's). */
  render: RenderContext;
  log: Logger;
  /** Where the step's stanzas are queued, in order. */
  outbox: Outbox;
  deadlines: Deadlines;
  /** Starts model work the step asked for; its answer comes back as a later input (host/analysis-runner.ts). */
  analyses: { run(effect: Extract<Effect, { kind: "analyse" }>): unknown };
  /** A session completed: it is archived, or forgotten in time (host/journal-keeper.ts). */
  keeper: { finished(sessionId: string): void };
}

/** Turns a step's effects into sends, timers and work, in the order the core gave them. */
export class EffectRunner {
  constructor(private readonly options: EffectRunnerOptions) {}

  /**
   * Renders the step's messages and queues them in order; `eventSeq`: the step's place in the
   * log, undefined when it was not logged (its stanzas then carry no origin-id and no record).
   */
  carryOut(sessionId: string, effects: Effect[], at: number, eventSeq: number | undefined): void {
    const { log, outbox, deadlines } = this.options;
    const rendered = renderEffects(sessionId, effects, at, this.options.render);
    for (const note of rendered.notes) log[note.level](note.data, note.msg);
    rendered.outgoing.forEach((outgoing, position) => outbox.queue(outgoing, eventSeq === undefined ? undefined : { eventSeq, position, at }));
    for (const effect of effects) {
      switch (effect.kind) {
        case "broadcast":
          log.debug({ sessionId: effect.message.sessionId, type: effect.message.type }, "protocol message sent");
          break;
        case "schedule":
          deadlines.schedule(effect.sessionId, effect.at);
          break;
        case "unschedule":
          deadlines.cancel(effect.sessionId);
          break;
        case "analyse":
          void this.options.analyses.run(effect);
          break;
        case "finished":
          this.options.keeper.finished(effect.sessionId);
          break;
        case "log":
          log[effect.level](effect.data, effect.msg);
          break;
        default:
          // say / tell: rendered above.
          break;
      }
    }
  }
}
