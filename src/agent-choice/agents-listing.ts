/**
 * The reply to `agents`: who the coordinator takes for an agent, whether each is present,
 * what each can do, and on what evidence. The shell's voice, marked as status since it names agents.
 */
import type { EvidenceKind, ListedAgent } from "./catalog.js";
import { plural } from "../base/text.js";

const EVIDENCE_WORDS: Record<EvidenceKind, string> = {
  profile: "its profile",
  disco: "Lingue features",
  protocol: "protocol messages",
  consensus: "named in a consensus",
};

/** Why the coordinator takes it for an agent: "its profile; protocol messages (2 contributions, 1 proposal)". */
export function evidenceWords(agent: Pick<ListedAgent, "evidence" | "contributions" | "proposals" | "chair">): string {
  if (agent.evidence.length === 0) return agent.chair ? "the Chair's nick (mfr:chairNick)" : "no evidence yet; not known as a person, so it might be an agent";
  const counts = [agent.contributions > 0 ? plural(agent.contributions, "contribution") : "", agent.proposals > 0 ? plural(agent.proposals, "proposal") : ""].filter(Boolean);
  return agent.evidence.map((k) => (k === "protocol" && counts.length > 0 ? `${EVIDENCE_WORDS[k]} (${counts.join(", ")})` : EVIDENCE_WORDS[k])).join("; ");
}

/** A room reply stays readable: past this many agents, the rest are counted, not listed. */
export const MAX_LISTED_AGENTS = 20;

/**
 * The reply to `agents`: who the coordinator takes for an agent, whether each is in the room,
 * what each can do, and on what evidence. Present ones first: those are the ones a session can use.
 */
export function agentsListing(agents: readonly ListedAgent[]): string {
  if (agents.length === 0) {
    return `No agents known yet: no peer profiles were loaded, and nobody else is in the room.`;
  }
  const present = agents.filter((a) => a.present).length;
  const lines = [`Agents: ${present} in the room, ${agents.length - present} known but away.`];
  for (const agent of agents.slice(0, MAX_LISTED_AGENTS)) lines.push(agentLine(agent));
  const more = agents.length - MAX_LISTED_AGENTS;
  if (more > 0) lines.push(`… and ${more} more`);
  return lines.join("\n");
}

/** "- Prolog (present): actions, constraints (needs approval) — evidence: its profile" */
function agentLine(agent: ListedAgent): string {
  const notes: string[] = [];
  if (agent.chair) notes.push("(chair)");
  if (agent.needsApproval) notes.push("(needs approval)");
  const tail = notes.length > 0 ? ` ${notes.join(" ")}` : "";
  return `- ${agent.nick} (${agent.present ? "present" : "absent"}): ${agent.offers}${tail} — evidence: ${evidenceWords(agent)}`;
}
