import { AGENT, FOAF, MFR, XMPP_VOCAB } from "../base/vocab.js";

/** Where in the profile a property lives: on the agent node, its XMPP account, its MFR settings, or its MFR phase rooms. */
export type ProfileNode = "agent" | "account" | "mfr" | "rooms";
export type ValueKind = "string" | "integer" | "boolean" | "strings";

export interface ProfileProperty {
  /** Key in the raw settings read from the profile. */
  key: string;
  node: ProfileNode;
  iri: string;
  /** Compact name used in messages, e.g. `agent:roomJid`. */
  curie: string;
  kind: ValueKind;
}

function prop(key: string, node: ProfileNode, ns: string, prefix: string, local: string, kind: ValueKind): ProfileProperty {
  return { key, node, iri: ns + local, curie: `${prefix}:${local}`, kind };
}

/** Every profile property the coordinator reads. Adding one here makes it known to the typo check too. */
export const PROFILE_PROPERTIES: readonly ProfileProperty[] = [
  prop("nick", "agent", FOAF, "foaf", "nick", "string"),
  prop("room", "agent", AGENT, "agent", "roomJid", "string"),
  prop("logRoom", "agent", AGENT, "agent", "logRoomJid", "string"),
  // The form existing MFR agents use: agent:mfrRooms [ mfr:constructRoom "…" ; mfr:validateRoom "…" ; mfr:reasonRoom "…" ].
  prop("constructRoom", "rooms", MFR, "mfr", "constructRoom", "string"),
  prop("validateRoom", "rooms", MFR, "mfr", "validateRoom", "string"),
  prop("reasonRoom", "rooms", MFR, "mfr", "reasonRoom", "string"),
  prop("service", "account", XMPP_VOCAB, "xmpp", "service", "string"),
  prop("domain", "account", XMPP_VOCAB, "xmpp", "domain", "string"),
  prop("username", "account", XMPP_VOCAB, "xmpp", "username", "string"),
  prop("passwordKey", "account", XMPP_VOCAB, "xmpp", "passwordKey", "string"),
  prop("resource", "account", XMPP_VOCAB, "xmpp", "resource", "string"),
  prop("directLine", "account", XMPP_VOCAB, "xmpp", "directLine", "boolean"),
  prop("shapesPath", "mfr", MFR, "mfr", "shapesPath", "string"),
  prop("contributionTimeoutMs", "mfr", MFR, "mfr", "contributionTimeout", "integer"),
  prop("validationTimeoutMs", "mfr", MFR, "mfr", "validationTimeout", "integer"),
  prop("reasoningTimeoutMs", "mfr", MFR, "mfr", "reasoningTimeout", "integer"),
  prop("debateTimeoutMs", "mfr", MFR, "mfr", "debateTimeout", "integer"),
  prop("quietPeriodMs", "mfr", MFR, "mfr", "quietPeriod", "integer"),
  prop("enableDebate", "mfr", MFR, "mfr", "enableDebate", "boolean"),
  prop("maxFixRounds", "mfr", MFR, "mfr", "maxFixRounds", "integer"),
  prop("maxRepairRounds", "mfr", MFR, "mfr", "maxRepairRounds", "integer"),
  prop("chairNick", "mfr", MFR, "mfr", "chairNick", "string"),
  // The reference solver agent's own settings (mfr-coordinator solver).
  prop("maxPlanSteps", "mfr", MFR, "mfr", "maxPlanSteps", "integer"),
  prop("planningTimeoutMs", "mfr", MFR, "mfr", "planningTimeout", "integer"),
  prop("maxStanzaBytes", "mfr", MFR, "mfr", "maxStanzaBytes", "integer"),
  prop("maxInboundBytes", "mfr", MFR, "mfr", "maxInboundBytes", "integer"),
  prop("maxTriplesPerContribution", "mfr", MFR, "mfr", "maxTriplesPerContribution", "integer"),
  prop("maxLiveSessions", "mfr", MFR, "mfr", "maxLiveSessions", "integer"),
  prop("maxLiveSessionsPerPerson", "mfr", MFR, "mfr", "maxLiveSessionsPerPerson", "integer"),
  prop("messagesPerMinute", "mfr", MFR, "mfr", "messagesPerMinute", "integer"),
  prop("modelWorkers", "mfr", MFR, "mfr", "modelWorkers", "integer"),
  prop("maxQueuedModelJobs", "mfr", MFR, "mfr", "maxQueuedModelJobs", "integer"),
  prop("commandAllowList", "mfr", MFR, "mfr", "allowCommandsFrom", "strings"),
  prop("protocolAllowList", "mfr", MFR, "mfr", "allowProtocolFrom", "strings"),
  prop("dataDir", "mfr", MFR, "mfr", "dataDir", "string"),
  prop("agentsDir", "mfr", MFR, "mfr", "agentsDir", "string"),
  // The web view (off unless a port is given).
  prop("httpPort", "mfr", MFR, "mfr", "httpPort", "integer"),
  prop("httpHost", "mfr", MFR, "mfr", "httpHost", "string"),
  prop("retentionMaxAgeDays", "mfr", MFR, "mfr", "retentionMaxAgeDays", "integer"),
  prop("retentionMaxCount", "mfr", MFR, "mfr", "retentionMaxCount", "integer"),
  prop("database", "mfr", MFR, "mfr", "database", "string"),
  prop("maxRoomsPerInstance", "mfr", MFR, "mfr", "maxRoomsPerInstance", "integer"),
  prop("rooms", "mfr", MFR, "mfr", "rooms", "strings"),
];

export const XMPP_ACCOUNT = `${AGENT}xmppAccount`;
export const MFR_CONFIG = `${AGENT}mfrConfig`;
export const MFR_ROOMS = `${AGENT}mfrRooms`;

/** Namespaces whose unknown properties are checked for typos; others (dcterms, schema, lng…) are left alone. */
export const CHECKED_NAMESPACES: Readonly<Record<string, string>> = {
  [AGENT]: "agent",
  [XMPP_VOCAB]: "xmpp",
  [MFR]: "mfr",
  [FOAF]: "foaf",
};

export function curieOf(iri: string): string {
  for (const [ns, prefix] of Object.entries(CHECKED_NAMESPACES)) {
    if (iri.startsWith(ns)) return `${prefix}:${iri.slice(ns.length)}`;
  }
  return `<${iri}>`;
}
