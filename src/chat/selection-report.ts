/** Sentences about choosing the agents of a session. Pure functions of the session. */
import type { Selection, SelectionOption, Session } from "../session/types.js";
import { names, seconds } from "../session/text.js";


export const selectionWording = {
  startedAllAgents: (s: Session) => `Session ${s.id} started: "${s.problem.replace(/\s+/g, " ").slice(0, 200)}".`,
  chosen: (s: Session, sel: Selection) =>
    [`${s.id}: agents chosen (${sel.method}):`, ...sel.chosen.slice(0, 12).map((a) => `  ${a}: ${sel.reasons[a] ?? "chosen"}`)].join("\n"),
  clarification: (s: Session, why: string, options: readonly SelectionOption[]) =>
    [
      `${s.id} needs clarification: ${why || "I cannot tell which agents fit this problem."} Which agents should work on it?`,
      ...options.slice(0, 12).map((o) => `  ${o.number}. ${o.agent}: ${o.reason}`),
      `${s.startedBy.nick}, answer with "use 1,3" (the numbers you want) or "use all" within ${seconds(s.settings.debateTimeoutMs)}.`,
    ].join("\n"),
  approvalNeeded: (s: Session, agents: readonly string[]) =>
    `${s.id}: ${names(agents)} ${agents.length === 1 ? "acts" : "act"} in the world (for example, executes plans) and will only be asked with a person's approval. Say "approve ${s.id}" to include ${agents.length === 1 ? "it" : "them"} or "reject ${s.id}" to leave ${agents.length === 1 ? "it" : "them"} out (${seconds(s.settings.debateTimeoutMs)}; no answer leaves ${agents.length === 1 ? "it" : "them"} out).`,
  approvalDecided: (s: Session, agents: readonly string[], approved: boolean, by: string) =>
    `${s.id}: ${by} ${approved ? "approved" : "rejected"} ${names(agents)}.`,
  approvalTimedOut: (s: Session, agents: readonly string[]) => `${s.id}: no approval within ${seconds(s.settings.debateTimeoutMs)}; leaving ${names(agents)} out.`,
  debateFallback: (s: Session, why: string) => `${s.id}: ${why}; choosing agents from the catalog instead.`,
  ignoredNames: (s: Session, ignored: readonly string[]) => `${s.id}: ignoring ${names(ignored.map((n) => `"${n}"`))}: not ${ignored.length === 1 ? "an agent" : "agents"} I know.`,
  noAgents: (why: string) => `No agents to work on the problem. ${why}`,
  noQuestionOpen: (s: Session) => `${s.id} is not waiting for a choice of agents.`,
  badChoice: (s: Session, missing: readonly number[], count: number) =>
    `${s.id} has options 1 to ${count}; there is no ${names(missing.map(String))}. Answer "use 1,3" or "use all".`,
  nothingToApprove: (s: Session) => `${s.id} is not waiting for an approval.`,
  clarificationTimedOut: (s: Session) => `Nobody chose the agents within ${seconds(s.settings.debateTimeoutMs)}, so the session could not start.`,
};
