/**
 * The words of the human commands ("Human commands" in PROTOCOL.md): the one table that
 * the parser, `help` and the rule for misspelt commands all read.
 */

export type CommandName = "start" | "debate" | "status" | "list" | "cancel" | "help" | "agents" | "approve" | "reject" | "use";

/** One command: its name, the words that start it, and its usage line. */
export interface CommandSpec {
  name: CommandName;
  words: readonly string[];
  usage: string;
  summary: string;
}

/** Every command the coordinator understands, in the order `help` lists them. */
export const COMMANDS: readonly CommandSpec[] = [
  { name: "start", words: ["mfr-start", "start"], usage: "mfr-start <problem>", summary: "start a session now, all agents invited" },
  { name: "debate", words: ["debate", "q:"], usage: "debate <problem>  (or  Q: <problem>)", summary: "choose the agents first, then start" },
  { name: "status", words: ["mfr-status"], usage: "mfr-status [sessionId]", summary: "phase, contributors, validation state and violations, time left" },
  { name: "list", words: ["mfr-list"], usage: "mfr-list", summary: "sessions, newest first" },
  { name: "cancel", words: ["mfr-cancel"], usage: "mfr-cancel <sessionId>", summary: "stop a session" },
  { name: "agents", words: ["agents"], usage: "agents", summary: "known agents, what each can do, who is here" },
  { name: "approve", words: ["approve"], usage: "approve <sessionId>", summary: "let agents that act in the world take part" },
  { name: "reject", words: ["reject"], usage: "reject <sessionId>", summary: "leave agents that act in the world out" },
  { name: "use", words: ["use"], usage: "use 1,3  (or  use all)", summary: "answer a clarification with the agents to use" },
  { name: "help", words: ["help", "mfr-help"], usage: "help", summary: "this list" },
];

/** The words a line can start with to be a command; `q:` carries its own delimiter and is no word to misspell. */
export const COMMAND_WORDS: readonly string[] = COMMANDS.flatMap((c) => c.words).filter((w) => !w.endsWith(":"));
