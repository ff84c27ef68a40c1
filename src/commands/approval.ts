import type { CommandContext, CommandScope } from "./command.js";
import { commandWording } from "./wording.js";

/** An approval or a rejection of the agents that act in the world, as input to the session (the core checks who may give it). */
export async function answerApproval(sessionId: string, approved: boolean, ctx: CommandContext, scope: CommandScope): Promise<void> {
  if (!scope.sessions.session(sessionId)) {
    await ctx.reply(commandWording.noSuchSession(sessionId));
    return;
  }
  scope.sessions.apply({ kind: "approval", sessionId, by: ctx.standing.requester, approved }, ctx.heard);
}
