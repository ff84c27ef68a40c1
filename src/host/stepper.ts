/**
 * The one rule of the host no part can keep alone: every input is journaled, stepped, carried
 * out and emitted, in that order, one at a time. The host's parts that make inputs (the
 * deadline timers, contribution and proposal intake, the analysis runner) are given this
 * object when they are made, and the effect runner registers itself on it (its effects start
 * the model work whose answers come back as inputs, so the loop is closed once, here).
 */
import type { Logger } from "pino";
import { stepSession } from "../session/step.js";
import type { RoomView, Session } from "../session/types.js";
import type { Effect, Input } from "../session/step-io.js";
import type { Heard } from "./heard.js";
import type { JournalKeeper } from "./journal-keeper.js";
import type { SessionTable } from "./session-table.js";
import type { StepListeners } from "./step-listeners.js";

/** Where an input goes to be stepped: what the host's parts are given. */
export interface Steps {
  /** Records the input, steps the core and carries out the effects. Never throws. */
  apply(input: Input, heard?: Heard): void;
}

/** What carries out one step's effects (host/effect-runner.ts). */
export interface EffectCarrier {
  carryOut(sessionId: string, effects: Effect[], at: number, eventSeq: number | undefined): void;
}

/** What the stepper is made with. */
export interface StepperParts {
  table: SessionTable;
  keeper: JournalKeeper;
  /** The formal models kept for plan checks (host/analysis-runner.ts): a completed session's is forgotten. */
  formalTexts: { forget(sessionId: string): void };
  steps: StepListeners;
  log: Logger;
  /** The clock, read once per input. */
  now: () => number;
  /** The room as it is now, for a debate whose deadline fires (its fallback is chosen from it). */
  deadlineRoom?: (session: Session) => RoomView | undefined;
}

/** Steps inputs one at a time, in the order of the rule above. */
export class Stepper implements Steps {
  private carrier: EffectCarrier | undefined;

  constructor(private readonly parts: StepperParts) {}

  /** Registers what carries out the effects (the effect runner, once, when it is made). */
  carryOutWith(carrier: EffectCarrier): void {
    this.carrier = carrier;
  }

  /** A deadline fired: as an input, a debate's carrying the room as it is now, to fall back on. */
  deadlineFired(sessionId: string, at: number): void {
    const session = this.parts.table.get(sessionId);
    const room = session ? this.parts.deadlineRoom?.(session) : undefined;
    this.apply({ kind: "deadline", sessionId, at, ...(room ? { room } : {}) });
  }

  /**
   * Records the input, steps the core and carries out the effects. Never throws.
   *
   * The clock is read once: the instant logged is the instant the core sees and the
   * messages carry, so a replay of the log computes the same deadlines and the same bytes.
   */
  apply(input: Input, heard?: Heard): void {
    const { table, keeper, formalTexts, steps, log, now } = this.parts;
    try {
      // What the room said while we were away counts when the room stamped it (host/heard.ts).
      const at = heard?.caughtUp ? heard.at : now();
      // An input for a session that does not exist changes nothing; it is answered but not
      // logged, so nobody can grow the log with made-up session ids.
      const before = table.get(input.sessionId);
      const logged = input.kind === "start" || before !== undefined ? keeper.append(input, at, heard) : undefined;
      // In place: the record is this host's own, and copying it per input grows with the live sessions.
      const { session: after, effects } = stepSession(before, input, at);
      if (after !== undefined) table.put(after);
      // A completed session checks no more plans.
      if (after?.phase === "complete") formalTexts.forget(input.sessionId);
      const carryOut = (eventSeq: number | undefined): void => {
        this.carrier?.carryOut(input.sessionId, effects, at, eventSeq);
        steps.emit({ at, input, before, after, effects });
      };
      if (!(logged instanceof Promise)) {
        carryOut(logged);
        return;
      }
      // A journal across a network (PostgreSQL): the next input is stepped at once, on the
      // state this one left, but nothing this step asks for — no message, no deadline, no
      // model work, no archive — happens before the input is durable. Appends resolve in
      // call order, so effects run in input order. When the write fails, the effects are
      // dropped: the store has told its owner, which gives the room up (src/fleet/), and
      // whoever takes the room next replays the log and catches up on the message again.
      logged.then(
        (eventSeq) => this.guarded(input, () => carryOut(eventSeq)),
        (err: unknown) => log.error({ err, input: input.kind, sessionId: input.sessionId }, "the input could not be made durable; what it asked for is not done"),
      );
    } catch (err) {
      log.error({ err, input: input.kind, sessionId: input.sessionId }, "failed to apply a session input");
    }
  }

  /** Runs `fn`, logging what it throws: the effects of a durable input never reject into nowhere. */
  private guarded(input: Input, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.parts.log.error({ err, input: input.kind, sessionId: input.sessionId }, "failed to carry out a session input's effects");
    }
  }
}
