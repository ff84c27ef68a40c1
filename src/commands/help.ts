import { helpText } from "./help-text.js";
import type { CommandHandler } from "./command.js";

/** `help`: what people can do. Who is who is for `agents` and the docs: help speaks to people about what they can do. */
export const help: CommandHandler<"help"> = async (_command, ctx, scope) => {
  await ctx.reply(helpText(scope.nick, scope.available));
};
