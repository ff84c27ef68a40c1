/**
 * Short, human wording for what an agent can do, from its profile and Lingue features. Shared
 * by the `agents` listing and by the clarification options, so a person sees the same
 * description in both places.
 */
import { clip } from "../base/text.js";
import { ContributionKind, LINGUE } from "../base/vocab.js";
import { humanise, localName, type AgentProfile } from "./agent-profile.js";

/** What the words are made from. */
export interface Described {
  profile?: AgentProfile | undefined;
  /** disco#info features of the occupant, when it answered. */
  features: readonly string[];
}

/** Lingue features live under the Lingue namespace (`…/lingue/feature/lang/model-first-rdf`). */
export function isLingue(feature: string): boolean {
  return feature.startsWith(LINGUE);
}

/** The four MFR contribution kinds in the words a person uses for them. */
export const KIND_WORDS: Readonly<Record<string, string>> = {
  [ContributionKind.EntityDiscovery]: "entities",
  [ContributionKind.ConstraintIdentification]: "constraints",
  [ContributionKind.ActionDefinition]: "actions",
  [ContributionKind.GoalIdentification]: "goals",
};

/**
 * Lingue modes and features every MFR peer has; they say how an agent talks, not what it is
 * good at, so they are left out of descriptions and out of matching.
 */
const GENERIC_MODES = new Set(
  ["human chat", "model first rdf", "model negotiation", "agent profile exchange", "profile exchange", "shacl validation"],
);

/** `lng:supports` values and disco#info features that say something specific, in words ("prolog program"). */
export function specificModes(entry: Described): string[] {
  // Other disco#info features (MUC, pings…) are about XMPP, not about the agent's skills.
  const names = [...(entry.profile?.supports ?? []), ...entry.features.filter(isLingue)].map((v) => humanise(localName(v)));
  return [...new Set(names.filter((n) => n !== "" && !GENERIC_MODES.has(n.toLowerCase())))];
}

/**
 * One short phrase: contribution kinds first (the MFR vocabulary people learn), then
 * capabilities, else the specific modes, else the description. Clipped to `maxChars`.
 */
export function whatItDoes(entry: Described, maxChars = 90): string {
  const profile = entry.profile;
  const parts: string[] = [];
  const kinds = (profile?.contributionKinds ?? []).map((k) => KIND_WORDS[k] ?? humanise(localName(k)));
  if (kinds.length > 0) parts.push(kinds.join(", "));
  if (profile && profile.capabilities.length > 0) parts.push(profile.capabilities.join(", "));
  if (parts.length === 0) {
    const modes = specificModes(entry);
    if (modes.length > 0) parts.push(modes.join(", "));
    else if (profile?.description) parts.push(profile.description);
    else parts.push(entry.features.some(isLingue) ? "Lingue agent, no profile" : "no profile");
  }
  return clip(parts.join("; "), maxChars);
}

