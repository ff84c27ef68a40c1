import type { CommandHandler } from "./command.js";
import { commandWording } from "./wording.js";

/** `use 1,3` (or `use all`): answers the clarification waiting for this requester with the agents to use. */
export const use: CommandHandler<"use"> = async (command, ctx, scope) => {
  const by = ctx.standing.requester;
  const waiting = scope.sessions.clarificationFor(by);
  if (!waiting) {
    await ctx.reply(commandWording.noClarification());
    return;
  }
  scope.sessions.apply({ kind: "choice", sessionId: waiting.id, by, choice: command.choice }, ctx.heard);
};
