/**
 * The steps of a session that is not in memory, rebuilt from its logged inputs by the core
 * (`step`, as the host applied them and as `replay` does), so an archived session's
 * timeline comes from the same `SessionStep`s a live one's does.
 */
import { emptySessions, sessionIn, step } from "../session/step.js";
import type { SessionStep } from "../host/session-host.js";
import type { StoredEvent } from "../host/journal-records.js";

export function stepsFromEvents(events: Iterable<Pick<StoredEvent, "input" | "at">>): SessionStep[] {
  let state = emptySessions();
  const steps: SessionStep[] = [];
  for (const { input, at } of events) {
    const before = sessionIn(state, input.sessionId);
    let result: ReturnType<typeof step>;
    try {
      result = step(state, input, at);
    } catch {
      // `replay` skips an input the core throws on; so does the view (the log and `verify` report it).
      continue;
    }
    state = result.state;
    steps.push({ at, input, before, after: sessionIn(state, input.sessionId), effects: result.effects });
  }
  return steps;
}
