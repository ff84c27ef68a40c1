import type { CommandHandler } from "./command.js";
import { startSession } from "./start.js";

/** `debate <problem>` (or `Q: <problem>`): the agents are chosen first (by a Chair's debate when one is free), then the session starts. */
export const debate: CommandHandler<"debate"> = (command, ctx, scope) => startSession("debate", command.problem, ctx, scope);
