/** The step stream's rule: a listener's failure is its own; the others still hear every step. */
import { describe, expect, it } from "vitest";
import { StepListeners, type SessionStep } from "../../src/host/step-listeners.js";
import { startInput } from "../support/session-fixtures.js";
import { NOW, silent } from "./fakes.js";

const step = (sessionId: string): SessionStep => ({ at: NOW, input: startInput({ sessionId }), before: undefined, after: undefined, effects: [] });

describe("StepListeners", () => {
  it("tells every listener of every step, in order, though one of them throws", () => {
    const listeners = new StepListeners(silent);
    const heard: string[] = [];
    listeners.add((s) => heard.push(`first ${s.input.sessionId}`));
    listeners.add(() => {
      throw new Error("a broken listener");
    });
    const stop = listeners.add((s) => heard.push(`last ${s.input.sessionId}`));
    expect(() => listeners.emit(step("s1"))).not.toThrow();
    stop();
    listeners.emit(step("s2"));
    expect(heard).toEqual(["first s1", "last s1", "first s2"]);
  });
});
