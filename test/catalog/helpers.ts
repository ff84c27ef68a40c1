/** Small builders for the catalog tests: profiles and entries without touching the file system. */
import type { AgentProfile } from "../../src/catalog/agent-profile.js";
import type { CatalogEntry } from "../../src/catalog/catalog.js";
import { ContributionKind } from "../../src/protocol/vocab.js";

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

export function entry(nick: string, over: Partial<AgentProfile> | null = {}, present = true): CatalogEntry {
  return {
    nick,
    ...(over === null ? {} : { profile: profile(nick, over) }),
    present,
    features: [],
    lingue: false,
  };
}

/** A room like the example profiles describe, everyone present. */
export function exampleRoom(): CatalogEntry[] {
  return [
    entry("Chair", { isChair: true, description: "Chairs debates on which tools and agents to use" }),
    entry("Prolog", {
      description: "Logic programming agent: defines actions, checks constraints and finds plans",
      capabilities: ["models actions", "identifies constraints", "plan generation"],
      contributionKinds: [ContributionKind.ActionDefinition, ContributionKind.ConstraintIdentification],
    }),
    entry("Mistral", {
      description: "Language model: names the people and objects involved and states the goals",
      capabilities: ["entity extraction", "goal identification"],
      contributionKinds: [ContributionKind.EntityDiscovery, ContributionKind.GoalIdentification],
    }),
    entry("Data", {
      description: "SPARQL query agent for Wikidata",
      supports: ["http://purl.org/stuff/lingue/HumanChat", "http://purl.org/stuff/lingue/SparqlQuery"],
      capabilities: ["grounds entities"],
      contributionKinds: [ContributionKind.EntityDiscovery],
    }),
    entry("Executor", { description: "Executes validated plans in the world", capabilities: ["plan execution"], requiresApproval: true }),
  ];
}
