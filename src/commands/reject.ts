import { answerApproval } from "./approval.js";
import type { CommandHandler } from "./command.js";

/** `reject <sessionId>`: leave agents that act in the world out. */
export const reject: CommandHandler<"reject"> = (command, ctx, scope) => answerApproval(command.sessionId, false, ctx, scope);
