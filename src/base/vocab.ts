/**
 * The IRIs of the wire contract (Lingue + MFR) and the RDF vocabularies that contributions
 * use. One place, so that a typo in a namespace cannot hide in one module.
 */

export const LINGUE = "http://purl.org/stuff/lingue/";
export const MFR = "http://purl.org/stuff/mfr/";
export const RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#";
export const RDFS = "http://www.w3.org/2000/01/rdf-schema#";
export const XSD = "http://www.w3.org/2001/XMLSchema#";
export const OWL = "http://www.w3.org/2002/07/owl#";
export const SH = "http://www.w3.org/ns/shacl#";
export const SCHEMA_HTTP = "http://schema.org/";
export const SCHEMA_HTTPS = "https://schema.org/";
export const FOAF = "http://xmlns.com/foaf/0.1/";
export const AGENT = "https://tensegrity.it/vocab/agent#";
export const XMPP_VOCAB = "https://tensegrity.it/vocab/xmpp#";

/** Payload modes (the `mode` attribute of `<payload>`); receivers dispatch on these. */
export const Mode = {
  ModelNegotiation: `${LINGUE}ModelNegotiation`,
  ModelFirstRDF: `${LINGUE}ModelFirstRDF`,
  HumanChat: `${LINGUE}HumanChat`,
  ShaclValidation: `${LINGUE}ShaclValidation`,
} as const;
export type ModeIri = (typeof Mode)[keyof typeof Mode];

export const MimeForMode: Record<ModeIri, string> = {
  [Mode.ModelNegotiation]: "application/json",
  [Mode.ModelFirstRDF]: "text/turtle",
  [Mode.HumanChat]: "text/plain",
  [Mode.ShaclValidation]: "application/json",
};

/**
 * The disco#info feature of the project's server modules (prosody/modules/mod_muc_keep_protocol.lua,
 * ejabberd/mod_muc_keep_protocol.erl): the room, or its MUC service, keeps agents' protocol
 * messages that have no body in its history and archive. The ejabberd module says it as the
 * FORM_TYPE of an extended-information form (XEP-0128) of the service, since ejabberd lets a
 * module add no feature there.
 */
export const KEEPS_PROTOCOL_FEATURE = `${MFR}feature/keeps-protocol`;

/** disco#info features the coordinator advertises (XEP-0030). */
export const LINGUE_FEATURES = [
  `${LINGUE}feature/lang/model-negotiation`,
  `${LINGUE}feature/lang/model-first-rdf`,
  `${LINGUE}feature/lang/human-chat`,
  `${LINGUE}feature/lang/shacl-validation`,
] as const;

/** ModelNegotiation message types, always sent as full IRIs. */
export const MessageType = {
  ModelContributionRequest: `${MFR}ModelContributionRequest`,
  ModelValidationResult: `${MFR}ModelValidationResult`,
  SolutionRequest: `${MFR}SolutionRequest`,
  SessionComplete: `${MFR}SessionComplete`,
  SolutionProposal: `${MFR}SolutionProposal`,
  PlanExecutionResult: `${MFR}PlanExecutionResult`,
  ActionSchema: `${MFR}ActionSchema`,
} as const;
export type MessageTypeIri = (typeof MessageType)[keyof typeof MessageType];

/** The contribution kinds a ModelContributionRequest asks for. */
export const ContributionKind = {
  EntityDiscovery: `${MFR}EntityDiscovery`,
  ConstraintIdentification: `${MFR}ConstraintIdentification`,
  ActionDefinition: `${MFR}ActionDefinition`,
  GoalIdentification: `${MFR}GoalIdentification`,
} as const;

/** MFR classes and properties that the coordinator itself reads or writes. */
export const Mfr = {
  ProblemModel: `${MFR}ProblemModel`,
  Entity: `${MFR}Entity`,
  StateVariable: `${MFR}StateVariable`,
  Action: `${MFR}Action`,
  Precondition: `${MFR}Precondition`,
  Effect: `${MFR}Effect`,
  Constraint: `${MFR}Constraint`,
  Goal: `${MFR}Goal`,
  Solution: `${MFR}Solution`,
  sessionId: `${MFR}sessionId`,
  problemDescription: `${MFR}problemDescription`,
  hasEntity: `${MFR}hasEntity`,
  hasAction: `${MFR}hasAction`,
  hasConstraint: `${MFR}hasConstraint`,
  hasGoal: `${MFR}hasGoal`,
  hasStateVariable: `${MFR}hasStateVariable`,
  contributedBy: `${MFR}contributedBy`,
  // What the formal model is read from (docs/protocol.md, "Formal models and verified solutions").
  symbol: `${MFR}symbol`,
  entityType: `${MFR}entityType`,
  actionName: `${MFR}actionName`,
  hasParameter: `${MFR}hasParameter`,
  hasPrecondition: `${MFR}hasPrecondition`,
  hasEffect: `${MFR}hasEffect`,
  expression: `${MFR}expression`,
  initialState: `${MFR}initialState`,
  constraintExpression: `${MFR}constraintExpression`,
} as const;

/** The terms of an RDF list (`( "a" "b" )` in Turtle). */
export const RdfList = { first: `${RDF}first`, rest: `${RDF}rest`, nil: `${RDF}nil` } as const;

export const RDF_TYPE = `${RDF}type`;

/** Namespace prefixes used when the coordinator writes Turtle or TriG. */
export const PREFIXES: Record<string, string> = {
  mfr: MFR,
  rdf: RDF,
  rdfs: RDFS,
  xsd: XSD,
  owl: OWL,
  schema: SCHEMA_HTTP,
};

/**
 * The base IRI of one session: relative IRIs in every contribution resolve against it (so
 * two agents' `<#alice>` meet), and the coordinator mints its own nodes under it.
 */
export function sessionBaseIri(sessionId: string): string {
  return `${MFR}session/${encodeURIComponent(sessionId)}/`;
}
