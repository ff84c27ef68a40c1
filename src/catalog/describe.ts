/**
 * Short, human wording for what a catalog entry can do. Shared by the `agents` listing and by
 * the clarification options, so a person sees the same description in both places.
 */
import { ContributionKind } from "../protocol/vocab.js";
import { humanise, localName } from "./agent-profile.js";
import { isLingue, type CatalogEntry } from "./catalog.js";
import { clip } from "../session/text.js";

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
export function specificModes(entry: CatalogEntry): string[] {
  // Other disco#info features (MUC, pings…) are about XMPP, not about the agent's skills.
  const names = [...(entry.profile?.supports ?? []), ...entry.features.filter(isLingue)].map((v) => humanise(localName(v)));
  return [...new Set(names.filter((n) => n !== "" && !GENERIC_MODES.has(n.toLowerCase())))];
}

/**
 * One short phrase: contribution kinds first (the MFR vocabulary people learn), then
 * capabilities, else the specific modes, else the description. Clipped to `maxChars`.
 */
export function whatItDoes(entry: CatalogEntry, maxChars = 90): string {
  const profile = entry.profile;
  const parts: string[] = [];
  const kinds = (profile?.contributionKinds ?? []).map((k) => KIND_WORDS[k] ?? humanise(localName(k)));
  if (kinds.length > 0) parts.push(kinds.join(", "));
  if (profile && profile.capabilities.length > 0) parts.push(profile.capabilities.join(", "));
  if (parts.length === 0) {
    const modes = specificModes(entry);
    if (modes.length > 0) parts.push(modes.join(", "));
    else if (profile?.description) parts.push(profile.description);
    else parts.push(entry.lingue ? "Lingue agent, no profile" : "no profile");
  }
  return clip(parts.join("; "), maxChars);
}

