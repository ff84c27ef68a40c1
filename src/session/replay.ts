import { step } from "./step.js";
import type { Effect, Input, Sessions } from "./step-io.js";

/**
 * Rebuilds sessions from logged inputs, each stepped with the `now` it was logged at, as
 * the running coordinator built them. Each step's effects go to `onStep` (whoever replays
 * decides what still needs doing, e.g. checking what was sent); without it they are
 * dropped. An input the core throws on is skipped and reported, not fatal.
 */
export function replay<E extends { input: Input; at: number }>(
  state: Sessions,
  events: Iterable<E>,
  onSkipped: (err: unknown, event: E) => void = (err) => {
    throw err;
  },
  onStep: (event: E, effects: Effect[]) => void = () => undefined,
): { state: Sessions; applied: number } {
  let applied = 0;
  for (const event of events) {
    let result: ReturnType<typeof step>;
    try {
      result = step(state, event.input, event.at);
    } catch (err) {
      onSkipped(err, event);
      continue;
    }
    state = result.state;
    applied++;
    onStep(event, result.effects);
  }
  return { state, applied };
}
