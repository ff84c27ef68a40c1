import { COMMANDS, type CommandName } from "./parse.js";

/**
 * The command list. Commands this build does not handle yet are listed too, marked, so
 * people learn what is coming instead of being told "unknown command".
 */
export function helpText(nick: string, available: ReadonlySet<CommandName>): string {
  const width = Math.max(...COMMANDS.map((c) => c.usage.length));
  const lines = COMMANDS.map((c) => {
    const mark = available.has(c.name) ? "" : "  (not yet available)";
    return `  ${c.usage.padEnd(width)}  ${c.summary}${mark}`;
  });
  return [
    `${nick} runs Model-First Reasoning sessions. Commands:`,
    ...lines,
    `In the room, start a line with the command, or address me: "${nick}: help".`,
  ].join("\n");
}
