import type { CommandHandler } from "./command.js";

/** `mfr-status [sessionId]`: a session's phase, contributors, validation and time left; marked as status in the room. */
export const status: CommandHandler<"status"> = async (command, ctx, scope) => {
  await ctx.reply(scope.sessions.statusText(command.sessionId));
};
