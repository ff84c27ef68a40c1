import { answerApproval } from "./approval.js";
import type { CommandHandler } from "./command.js";

/** `approve <sessionId>`: let agents that act in the world take part. */
export const approve: CommandHandler<"approve"> = (command, ctx, scope) => answerApproval(command.sessionId, true, ctx, scope);
