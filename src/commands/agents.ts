import type { CommandHandler } from "./command.js";
import { commandWording } from "./wording.js";

/** `agents`: the known agents, what each can do, who is here; and how this room tells people apart. */
export const agents: CommandHandler<"agents"> = async (_command, ctx, scope) => {
  const identities = scope.identities();
  await ctx.reply(`${scope.chooser.listing()}\n${identities ? commandWording.identityBasis(identities) : ""}`);
};
