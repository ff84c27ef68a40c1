import type { CommandHandler } from "./command.js";

/** `mfr-list`: the sessions, newest first; marked as status in the room. */
export const list: CommandHandler<"list"> = async (_command, ctx, scope) => {
  await ctx.reply(scope.sessions.listText());
};
