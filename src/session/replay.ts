import { step } from "./step.js";
import type { Input, Sessions } from "./types.js";

/**
 * Rebuilds sessions from logged inputs, each stepped with the `now` it was logged at, as
 * the running coordinator built them. Effects are dropped: whoever replays decides what
 * still needs doing. An input the core throws on is skipped and reported, not fatal.
 */
export function replay(
  state: Sessions,
  events: Iterable<{ input: Input; at: number }>,
  onSkipped: (err: unknown, input: Input) => void = (err) => {
    throw err;
  },
): { state: Sessions; applied: number } {
  let applied = 0;
  for (const { input, at } of events) {
    try {
      state = step(state, input, at).state;
      applied++;
    } catch (err) {
      onSkipped(err, input);
    }
  }
  return { state, applied };
}
