/** Small builders for the catalog and selection tests: profiles and rooms without touching the file system. */
import type { AgentProfile } from "../../src/agent-choice/agent-profile.js";
import { specificModes, whatItDoes } from "../../src/agent-choice/describe.js";
import { ContributionKind } from "../../src/base/vocab.js";
import type { Candidate, RoomView } from "../../src/session/room-view.js";

export const REPO_PROFILES = new URL("../../config/agents/", import.meta.url).pathname;

export function profile(nick: string, over: Partial<AgentProfile> = {}): AgentProfile {
  return {
    nick,
    supports: [],
    capabilities: [],
    contributionKinds: [],
    requiresApproval: false,
    isChair: false,
    file: `${nick.toLowerCase()}.ttl`,
    ...over,
  };
}

/** A candidate as the catalog describes it: from a profile, or (`null`) an occupant with no profile. */
export function candidate(nick: string, over: Partial<AgentProfile> | null = {}, more: Partial<Candidate> = {}): Candidate {
  const p = over === null ? undefined : profile(nick, over);
  return {
    nick,
    identity: `occupant:${nick.toLowerCase()}`,
    evidence: p ? ["profile"] : [],
    contributions: 0,
    proposals: 0,
    declared: {
      capabilities: (p?.capabilities ?? []).join(", "),
      kinds: p?.contributionKinds ?? [],
      description: p?.description ?? "",
      modes: specificModes({ profile: p, features: [] }).join(", "),
    },
    offers: whatItDoes({ profile: p, features: [] }, 70),
    needsApproval: p?.requiresApproval ?? false,
    ...more,
  };
}

export function room(candidates: Candidate[], absent: string[] = []): RoomView {
  return { candidates, absent };
}

/** A room like the example profiles describe, everyone present (the Chair is not a candidate). */
export function exampleRoom(): RoomView {
  return room([
    candidate("Prolog", {
      description: "Logic programming agent: defines actions, checks constraints and finds plans",
      capabilities: ["models actions", "identifies constraints", "plan generation"],
      contributionKinds: [ContributionKind.ActionDefinition, ContributionKind.ConstraintIdentification],
    }),
    candidate("Mistral", {
      description: "Language model: names the people and objects involved and states the goals",
      capabilities: ["entity extraction", "goal identification"],
      contributionKinds: [ContributionKind.EntityDiscovery, ContributionKind.GoalIdentification],
    }),
    candidate("Data", {
      description: "SPARQL query agent for Wikidata",
      supports: ["http://purl.org/stuff/lingue/HumanChat", "http://purl.org/stuff/lingue/SparqlQuery"],
      capabilities: ["grounds entities"],
      contributionKinds: [ContributionKind.EntityDiscovery],
    }),
    candidate("Executor", { description: "Executes validated plans in the world", capabilities: ["plan execution"], requiresApproval: true }),
  ]);
}

/** The room of docs/protocol.md's example: existing agents with no profile and no Lingue features. */
export function existingAgentsRoom(): RoomView {
  return room([candidate("MfrSemantic", null), candidate("Prolog", null)]);
}
