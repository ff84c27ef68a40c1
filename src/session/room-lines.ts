/**
 * The one rule of the coordinator's lines in a room (docs/sessions.md, "What the coordinator
 * says in the room"): every line starts with the status mark `[MFR] `, except the lines that
 * agents must act on — the requests for contributions, fixes, solutions and repairs (the
 * bodies of ModelContributionRequest and SolutionRequest) and a Chair's debate invitation —
 * which never name an agent. Existing agents skip lines that start with the mark (docs/protocol.md,
 * "Addressing in the room"), so a line that names an agent never wakes it, and a person
 * reading the room sees one rule: marked lines are the coordinator's news, unmarked ones ask
 * agents to work. 1:1 chat has no mark: no agent reads it.
 *
 * The mark is added where room lines are made into stanzas (host/outgoing.ts for what a
 * step says, inbound/replies.ts for answers to commands), never by the sentences themselves.
 */
import type { Broadcast } from "./step-io.js";

/** Marks a line as the coordinator's status: existing agents and Chairs skip it. */
export const STATUS_MARK = "[MFR] ";

/** The line with the status mark in front, once. */
export function marked(text: string): string {
  return text.startsWith(STATUS_MARK) ? text : `${STATUS_MARK}${text}`;
}

/** Whether a protocol message asks agents to act: its body is left unmarked, so they read it. */
export function asksAgents(type: Broadcast["type"]): boolean {
  return type === "ModelContributionRequest" || type === "SolutionRequest";
}
