/**
 * The last stage: each message to where it goes. (A protocol message was carried to the
 * host's intakes by the stage before, ./carry-protocol.ts.) A command to its handler in the registry; a command with wrong arguments to its usage; a
 * debate line to the session being debated; something said as a command that is none to
 * the answer naming the nearest command (addressed by nick in the room); chatter nowhere.
 * Of what a person sent 1:1 while we were away, only commands are answered: a word that is
 * none, answered a day later, would only puzzle them.
 */
import type { Logger } from "pino";
import { wording } from "./wording.js";
import type { CommandScope } from "../commands/command.js";
import { runCommand } from "../commands/registry.js";
import type { SessionHost } from "../host/session-host.js";
import { sentWhileAway, type RoutedContext } from "./context.js";
import type { Stage } from "./chain.js";

/** Where messages go: the host, the command handlers with their scope, and the protocol carrier. */
export interface RouteOptions {
  sessions: Pick<SessionHost, "apply">;
  commands: CommandScope;
  log: Logger;
}

/** Sends one identified message on; resolves when the next message may follow. */
export async function routeMessage(ctx: RoutedContext, options: RouteOptions): Promise<void> {
  const { reading } = ctx;
  switch (reading.kind) {
    case "debate-line":
      options.log.debug({ sender: ctx.sender.label, sessionId: reading.input.sessionId, line: reading.input.line.kind }, "debate line");
      options.sessions.apply(reading.input, ctx.heard);
      return;
    case "command":
      return runCommand(reading.command, ctx, options.commands);
    case "misuse":
      await ctx.reply(wording.usage(reading.misuse));
      return;
    case "unknown": {
      const sentAt = sentWhileAway(ctx);
      if (sentAt !== undefined) {
        options.log.info({ sender: ctx.sender.label, sentAt: new Date(sentAt).toISOString() }, "1:1 message sent while we were away is no command; not answered");
        return;
      }
      // Answered every time: a person who keeps mistyping is told each time; only the flood guard bounds how often.
      const text = wording.unknownCommand(reading.unknown.word, reading.unknown.suggestion);
      await ctx.reply(ctx.replyTo.kind === "room" ? `${ctx.sender.name}: ${text}` : text);
      return;
    }
    case "chatter":
      return;
  }
}

/** The last stage: the message goes where it belongs (routeMessage); nothing follows it. */
export function routed(options: RouteOptions): Stage<RoutedContext, never> {
  return (ctx) => routeMessage(ctx, options);
}
