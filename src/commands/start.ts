import { problemFits } from "../protocol/outbound.js";
import type { CommandContext, CommandHandler, CommandScope } from "./command.js";
import { commandWording } from "./wording.js";

/**
 * Starts a session on a problem, with the plan the chooser makes for it: `mfr-start` invites
 * everyone present, `debate` chooses first. A problem too large to quote in every request,
 * or one over the live-session limits, starts nothing and is said so; a start asked in 1:1
 * chat is told where the session runs.
 */
export async function startSession(how: "start" | "debate", problem: string, ctx: CommandContext, scope: CommandScope): Promise<void> {
  const fits = problemFits(problem, scope.maxStanzaBytes);
  if (!fits.ok) {
    scope.refused("problem-too-large");
    await ctx.reply(commandWording.problemTooLarge(fits.bytes, fits.max));
    return;
  }
  const by = ctx.standing.participant;
  const plan = how === "start" ? scope.chooser.planStart(by) : scope.chooser.planDebate(by, scope.sessions.debatingSessions());
  if (plan.note) await ctx.sayIn("primary", plan.note);
  const started = scope.sessions.start(problem, by, plan, ctx.heard);
  if (!started.ok) {
    scope.refused("session-limit");
    await ctx.reply(ctx.replyTo.kind === "room" ? `${ctx.sender.name}: ${started.reason}` : started.reason);
  } else if (ctx.replyTo.kind === "direct") await ctx.reply(`Started ${started.sessionId} in ${scope.room}.`);
}

/** `mfr-start <problem>`: a session now, all agents present invited. */
export const start: CommandHandler<"start"> = (command, ctx, scope) => startSession("start", command.problem, ctx, scope);
