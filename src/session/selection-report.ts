/**
 * Every sentence the core says about choosing agents: the debate invitation, what the
 * selection decided, the questions a person answers. Pure functions.
 *
 * Two rules of the room shape them (docs/protocol.md, "Addressing in the room" and "Debate with a
 * Chair"): existing agents answer any line that names them, and Chairs read every plain line
 * as debate input, but both skip lines that start with the system-status marker `[MFR] `. So
 * every line here is said with it (room-lines.ts adds it where the line is sent), except the
 * invitation, which Chairs must read (its `say` effect is marked `forChairs`). And the phrases
 * that open a debate appear in the invitation only.
 */
import type { NameMapping } from "./selection-names.js";
import type { Selection, SelectionOption, Session } from "./types.js";
import { clip, names, seconds } from "../base/text.js";


/** Lines named per message; a room message stays readable. */
const MAX_LINES = 12;

/**
 * The invitation existing Chairs recognise, exactly as docs/protocol.md step 1 gives it. It must not
 * start with "Debate" (Chairs take that for a person's command). Newlines in the problem are
 * flattened: Chairs read line by line.
 */
export function debateInvitation(sessionId: string, problem: string, available: readonly string[]): string {
  return [
    `Session: ${sessionId}`,
    "Issue: Which tools and agents should we use to solve this problem?",
    `Problem: ${problem.replace(/\s+/g, " ").trim()}`,
    `Available agents: ${available.length > 0 ? available.join(", ") : "none"}.`,
    "Respond with Position/Support/Objection.",
  ].join("\n");
}

export const selectionWording = {
  startedAllAgents: (s: Session) => `Session ${s.id} started: "${clip(s.problem, 200)}".`,
  chosen: (s: Session, sel: Selection) =>
    [`Session ${s.id}: agents chosen (${sel.method}):`, ...sel.chosen.slice(0, MAX_LINES).map((a) => `  ${a}: ${sel.reasons[a] ?? "chosen"}`)].join("\n"),
  everyone: (s: Session, agents: readonly string[], why: string) =>
    agents.length === 0
      ? `Session ${s.id}: ${why}, so I ask anyone in the room who answers.`
      : `Session ${s.id}: ${why}, so I ask every occupant that might be an agent: ${names(agents.slice(0, MAX_LINES * 2))}.`,
  clarification: (s: Session, why: string, options: readonly SelectionOption[]) =>
    [
      `Session ${s.id} needs clarification: ${why || "I cannot tell which agents fit this problem."} Which agents should work on it?`,
      ...options.slice(0, MAX_LINES).map((o) => `  ${o.number}. ${o.agent}: ${o.reason}`),
      `${s.startedBy.nick}, answer with "${useExample(options.length)}" (the numbers you want) or "use all" within ${seconds(s.settings.debateTimeoutMs)}.`,
    ].join("\n"),
  approvalNeeded: (s: Session, agents: readonly string[]) => {
    const them = agents.length === 1 ? "it" : "them";
    return `Session ${s.id}: ${names(agents)} ${agents.length === 1 ? "acts" : "act"} in the world (for example, executes plans) and will only be asked with a person's approval. Say "approve ${s.id}" to include ${them} or "reject ${s.id}" to leave ${them} out (${seconds(s.settings.debateTimeoutMs)}; no answer leaves ${them} out).`;
  },
  approvalDecided: (s: Session, agents: readonly string[], approved: boolean, by: string) =>
    `Session ${s.id}: ${by} ${approved ? "approved" : "rejected"} ${names(agents)}.`,
  approvalTimedOut: (s: Session, agents: readonly string[]) => `Session ${s.id}: no approval within ${seconds(s.settings.debateTimeoutMs)}; leaving ${names(agents)} out.`,
  debateFallback: (s: Session, why: string) => `Session ${s.id}: ${why}; choosing agents from the room instead.`,
  /** One line: which name of the consensus became which agent, and which matched nobody. */
  consensusNames: (s: Session, mapping: readonly NameMapping[]) => `Session ${s.id}: from the consensus, ${mapping.map(describeMapping).join("; ")}.`,
  /** Older logs: names the shell could not resolve. */
  ignoredNames: (s: Session, ignored: readonly string[]) => `Session ${s.id}: ignoring ${names(ignored.map((n) => `"${n}"`))}: not ${ignored.length === 1 ? "an agent" : "agents"} I know.`,
  departed: (s: Session, nick: string, option: number | undefined) =>
    `Session ${s.id}: ${nick} left the room${option === undefined ? "; it will not be asked" : `; option ${option} is withdrawn`}.`,
  noAgents: (why: string) => `No agents to work on the problem. ${why}`,
  noQuestionOpen: (s: Session) => `Session ${s.id} is not waiting for a choice of agents.`,
  badChoice: (s: Session, missing: readonly number[], count: number) =>
    `Session ${s.id} has options 1 to ${count}; there is no ${names(missing.map(String))}. Answer "${useExample(count)}" or "use all".`,
  nothingToApprove: (s: Session) => `Session ${s.id} is not waiting for an approval.`,
  clarificationTimedOut: (s: Session) => `Nobody chose the agents within ${seconds(s.settings.debateTimeoutMs)}, so the session could not start.`,
  /** Said by the shell before a session that cannot be debated. */
  noChair: (chair: string) => `No Chair (${chair}) is in the room; choosing agents from the room.`,
  chairBusy: (chair: string, busy: string) => `${chair} is already leading the debate of ${busy}; choosing agents from the room for this one.`,
};

/** An answer that fits the options offered: "use 1" for one, "use 1,2" for two, "use 1,3" for more. */
function useExample(count: number): string {
  return count <= 1 ? "use 1" : `use 1,${Math.min(count, 3)}`;
}

function describeMapping(m: NameMapping): string {
  if ("agent" in m) return `"${m.name}" is ${m.agent}`;
  if ("absent" in m) return `"${m.name}" is ${m.absent}, who is not in the room`;
  if ("ambiguous" in m) return `"${m.name}" could be ${names(m.ambiguous)}, so it matched nobody`;
  return `"${m.name}" matched nobody`;
}
