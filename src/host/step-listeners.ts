/**
 * The one stream of session steps: the web view, the metrics and the tests all read it, so
 * nothing keeps its own account of what a session did.
 *
 * The rule it keeps: a listener's failure is its own; the session goes on, and the other
 * listeners still hear the step.
 */
import type { Logger } from "pino";
import type { Session } from "../session/types.js";
import type { Effect, Input } from "../session/step-io.js";

/**
 * One step of one session, as the core took it: the input, the session before and after,
 * and the effects it asked for. The host emits one for every input it applies (journaled or
 * not); the web view, the metrics and the tests all read this one stream, so nothing keeps
 * its own account of what a session did.
 */
export interface SessionStep {
  at: number;
  input: Input;
  /** Undefined before a session's first input, or for a session the core does not know. */
  before: Session | undefined;
  /** The session as the step left it (before it is archived, when the step completed it). */
  after: Session | undefined;
  effects: readonly Effect[];
}

/** Hears one step; what it throws is logged, not passed on. */
export type SessionStepListener = (step: SessionStep) => void;

/** The listeners of the host's steps, each told of every step in the order they were taken. */
export class StepListeners {
  private readonly listeners = new Set<SessionStepListener>();

  constructor(private readonly log: Logger) {}

  /** Hears every step from now on; returns the function that stops it. */
  add(listener: SessionStepListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Tells every listener of the step; one that throws is logged and the rest still hear. */
  emit(step: SessionStep): void {
    for (const listener of this.listeners) {
      try {
        listener(step);
      } catch (err) {
        this.log.error({ err, sessionId: step.input.sessionId }, "a session step listener failed");
      }
    }
  }
}
