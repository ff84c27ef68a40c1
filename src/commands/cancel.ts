import type { CommandHandler } from "./command.js";
import { commandWording } from "./wording.js";

/** `mfr-cancel <sessionId>`: stops a session, if the requester's standing lets them (the core decides and says so). */
export const cancel: CommandHandler<"cancel"> = async (command, ctx, scope) => {
  if (!scope.sessions.cancel(command.sessionId, ctx.standing.requester, ctx.heard)) await ctx.reply(commandWording.noSuchSession(command.sessionId));
};
