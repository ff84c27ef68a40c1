/**
 * The reply to the `agents` command: who the coordinator knows, whether they are in the room,
 * and what each can do. Present agents come first because those are the ones a session can use.
 */
import { compareNicks, type CatalogEntry } from "./catalog.js";
import { whatItDoes } from "./describe.js";

/** A room reply stays readable: past this many agents, the rest are counted, not listed. */
export const MAX_LISTED_AGENTS = 20;

export function agentsListing(entries: readonly CatalogEntry[]): string {
  if (entries.length === 0) {
    return "No agents known yet: no peer profiles were loaded and no agent in the room advertises Lingue features.";
  }
  const ordered = [...entries].sort((a, b) => Number(b.present) - Number(a.present) || compareNicks(a.nick, b.nick));
  const present = ordered.filter((e) => e.present).length;
  const lines = [`Agents: ${entries.length} known, ${present} present.`];
  for (const entry of ordered.slice(0, MAX_LISTED_AGENTS)) lines.push(agentLine(entry));
  const more = ordered.length - MAX_LISTED_AGENTS;
  if (more > 0) lines.push(`… and ${more} more`);
  return lines.join("\n");
}

/** "- Prolog (present): actions, constraints; models actions, … (needs approval)" */
function agentLine(entry: CatalogEntry): string {
  const notes: string[] = [];
  if (entry.profile?.isChair) notes.push("(chair)");
  if (entry.profile?.requiresApproval) notes.push("(needs approval)");
  const tail = notes.length > 0 ? ` ${notes.join(" ")}` : "";
  return `- ${entry.nick} (${entry.present ? "present" : "absent"}): ${whatItDoes(entry, 90)}${tail}`;
}
