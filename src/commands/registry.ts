/**
 * The commands, each by name to its handler. A command word without a handler here is
 * still parsed and listed by `help` (marked), and answered "not available in this version
 * yet" rather than "unknown command".
 */
import { COMMANDS, type Command, type CommandName } from "./parse.js";
import { agents } from "./agents.js";
import { approve } from "./approve.js";
import { cancel } from "./cancel.js";
import type { CommandContext, CommandHandler, CommandScope } from "./command.js";
import { debate } from "./debate.js";
import { help } from "./help.js";
import { list } from "./list.js";
import { reject } from "./reject.js";
import { start } from "./start.js";
import { status } from "./status.js";
import { use } from "./use.js";
import { commandWording } from "./wording.js";

type Handlers = { [N in CommandName]?: CommandHandler<N> };

const HANDLERS: Handlers = { help, list, start, status, cancel, debate, agents, approve, reject, use };

/** The commands this build carries out. */
export const AVAILABLE_COMMANDS: ReadonlySet<CommandName> = new Set(Object.keys(HANDLERS) as CommandName[]);

/** Carries out a command through its handler; one without a handler is said to be not available yet. */
export async function runCommand(command: Command, ctx: CommandContext, scope: CommandScope): Promise<void> {
  const handler = HANDLERS[command.name] as CommandHandler | undefined;
  if (!handler) {
    const usage = COMMANDS.find((c) => c.name === command.name)?.usage ?? command.name;
    await ctx.reply(commandWording.notYetAvailable(usage));
    return;
  }
  await handler(command as never, ctx, scope);
}
