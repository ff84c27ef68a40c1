/**
 * Reads the peer agents' RDF profiles (`config/agents/*.ttl`) into plain AgentProfile
 * records for the catalog. This is the only module of the catalog that does I/O, and it only
 * reads local files: IRIs in a profile are names, never fetched.
 *
 * Real MFR/Lingue profiles (the tia agents) say what an agent can do in several ways, and
 * this reader accepts all of them:
 * - `lng:supports lng:HumanChat, lng:PrologProgram` — Lingue language modes (IRIs, or literals);
 * - `mfr:capabilities [ mfr:modelsActions true ; mfr:contributionTypes mfr:ActionDefinition ]`
 *   — a node of boolean flags plus the MFR contribution types it offers;
 * - `agent:hasCapability` / `agent:capability` — IRIs, literals, or nodes carrying
 *   `rdfs:label`, `schema:name`, `dcterms:title` or a description;
 * - MFR classes on the agent node (`mfr:LogicalReasoningAgent`) and tools it provides
 *   (`mcp:providesTool [ mcp:name …; mcp:description … ]`).
 *
 * Decisions documented here because the vocabularies leave them open:
 * - An agent is a Chair when its profile says `agent:role "chair"` (a literal, or an IRI whose
 *   local name is `chair`), or when it is typed `agent:ModeratorAgent` / `agent:ChairAgent`
 *   (the tia Chair profile uses `agent:ModeratorAgent`).
 * - An agent needs a person's approval before it is asked to work when its profile says
 *   `agent:requiresApproval true`, or when it is typed `mfr:ExecutionAgent` (it acts in the
 *   world) and the profile does not explicitly say `agent:requiresApproval false`.
 */
import { readFileSync, readdirSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { Parser, type Quad, type Term } from "n3";
import { AGENT, ContributionKind, FOAF, LINGUE, MFR, RDF_TYPE, RDFS, SCHEMA_HTTP, SCHEMA_HTTPS } from "../base/vocab.js";
import { clip } from "../base/text.js";
import { humanise } from "../session/selection-words.js";

export { humanise };

/** What the coordinator knows about one peer agent from its profile. */
export interface AgentProfile {
  /** The agent's room nick (`foaf:nick`). */
  nick: string;
  description?: string;
  /** `lng:supports` values: full IRIs, or literal text as written. */
  supports: string[];
  /** Human-readable things the agent can do, e.g. "models actions", "sparqlQuery: Execute SPARQL queries". */
  capabilities: string[];
  /** Full MFR IRIs among EntityDiscovery, ConstraintIdentification, ActionDefinition, GoalIdentification. */
  contributionKinds: string[];
  /** Acts in the world: never requested without a person's approval. */
  requiresApproval: boolean;
  /** Runs debates (the Chair); never selected as a worker. */
  isChair: boolean;
  /** The profile file it came from. */
  file: string;
}

export interface LoadedProfiles {
  profiles: AgentProfile[];
  /** One line per problem: `<file>: line <n>: <what>` or `<file>: <what>`. */
  problems: string[];
}

export interface LoadOptions {
  /** File names (or paths) to skip, e.g. the coordinator's own profile. Compared by base name. */
  excludeFiles?: string[];
}

/** A profile directory is written by people; these bounds only stop accidents (a stray dump). */
const MAX_FILES = 200;
const MAX_FILE_BYTES = 1024 * 1024;
const MAX_VALUES = 50;
const MAX_TEXT = 300;

const DCTERMS = "http://purl.org/dc/terms/";
const DC11 = "http://purl.org/dc/elements/1.1/";
const MCP = "http://purl.org/stuff/mcp/";

const NICK_PREDICATES = [`${FOAF}nick`, `${AGENT}nickname`];
const DESCRIPTION_PREDICATES = [`${DCTERMS}description`, `${SCHEMA_HTTPS}description`, `${SCHEMA_HTTP}description`, `${DC11}description`, `${RDFS}comment`];
const LABEL_PREDICATES = [
  `${RDFS}label`,
  `${SCHEMA_HTTPS}name`,
  `${SCHEMA_HTTP}name`,
  `${DCTERMS}title`,
  `${FOAF}name`,
  `${MCP}name`,
];
const NODE_DESCRIPTION_PREDICATES = [...DESCRIPTION_PREDICATES, `${MCP}description`];
/** Properties whose objects are capabilities (IRIs, literals or described nodes). */
const CAPABILITY_PREDICATES = [
  `${AGENT}hasCapability`,
  `${AGENT}capability`,
  `${AGENT}capabilities`,
  `${MFR}capability`,
  `${MFR}capabilities`,
  `${LINGUE}capability`,
  `${MCP}providesTool`,
];
/** Properties whose objects are MFR contribution kinds, on the agent node or a capability node. */
const CONTRIBUTION_PREDICATES = [
  `${MFR}contributionTypes`,
  `${MFR}contributionType`,
  `${MFR}contributionKinds`,
  `${MFR}contributionKind`,
  `${AGENT}contributionKind`,
  `${AGENT}contributionKinds`,
];
const SUPPORTS = `${LINGUE}supports`;
const REQUIRES_APPROVAL = `${AGENT}requiresApproval`;
const ROLE_PREDICATES = [`${AGENT}role`, `${MFR}role`];
const CHAIR_TYPES = new Set([`${AGENT}ModeratorAgent`, `${AGENT}ChairAgent`, `${AGENT}Chair`, `${MFR}ChairAgent`]);
const EXECUTION_TYPES = new Set([`${MFR}ExecutionAgent`, `${AGENT}ExecutionAgent`]);

const STANDARD_KINDS: readonly string[] = Object.values(ContributionKind);

/**
 * Flags like `mfr:extractsEntities true` say the same as a contribution type; reading them
 * lets a profile that only has flags still be matched to the kinds it can contribute.
 */
const FLAG_KINDS: ReadonlyArray<[RegExp, string]> = [
  [/^(extracts|identifies|discovers|grounds|models|defines)Entities$/, ContributionKind.EntityDiscovery],
  [/^(extracts|identifies|discovers|models|defines)Constraints$/, ContributionKind.ConstraintIdentification],
  [/^(extracts|identifies|discovers|models|defines)Actions$/, ContributionKind.ActionDefinition],
  [/^(extracts|identifies|discovers|models|defines)Goals$/, ContributionKind.GoalIdentification],
];

/** Reads every `*.ttl` in `dir` (sorted by name), never throwing: unreadable or broken files become problem lines. */
export function loadAgentProfiles(dir: string, opts: LoadOptions = {}): LoadedProfiles {
  const excluded = new Set((opts.excludeFiles ?? []).map((f) => basename(f).toLowerCase()));
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.toLowerCase().endsWith(".ttl")).sort();
  } catch (err) {
    return { profiles: [], problems: [`${dir}: the agent profile directory is not readable (${errorCode(err)})`] };
  }
  const problems: string[] = [];
  const profiles: AgentProfile[] = [];
  const wanted = names.filter((n) => !excluded.has(n.toLowerCase()));
  if (wanted.length > MAX_FILES) {
    problems.push(`${dir}: ${wanted.length} profile files; only the first ${MAX_FILES} were read`);
  }
  for (const name of wanted.slice(0, MAX_FILES)) {
    const path = join(dir, name);
    const text = readText(path, problems);
    if (text === undefined) continue;
    const parsed = parseAgentProfiles(text, path);
    problems.push(...parsed.problems);
    for (const profile of parsed.profiles) {
      const clash = profiles.find((p) => p.nick.toLowerCase() === profile.nick.toLowerCase());
      if (clash) {
        problems.push(`${path}: nick "${profile.nick}" is already described in ${clash.file}; this one is ignored`);
        continue;
      }
      profiles.push(profile);
    }
  }
  return { profiles, problems };
}

function readText(path: string, problems: string[]): string | undefined {
  try {
    const size = statSync(path).size;
    if (size > MAX_FILE_BYTES) {
      problems.push(`${path}: is ${size} bytes, more than the ${MAX_FILE_BYTES} a profile may have; skipped`);
      return undefined;
    }
    return readFileSync(path, "utf8");
  } catch (err) {
    problems.push(`${path}: is not readable (${errorCode(err)})`);
    return undefined;
  }
}

function errorCode(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? String(err);
}

/** Parses one profile document (pure). One AgentProfile per subject that has a nick. */
export function parseAgentProfiles(text: string, file: string): LoadedProfiles {
  let quads: Quad[];
  try {
    // A file base makes `<#prolog>` a proper IRI and keeps nodes of different files apart.
    quads = new Parser({ baseIRI: pathToFileURL(resolve(file)).href }).parse(text);
  } catch (err) {
    const line = (err as { context?: { line?: number } }).context?.line;
    const message = (err as Error).message.split("\n")[0] ?? "";
    return { profiles: [], problems: [`${file}: ${line === undefined ? "" : `line ${line}: `}not valid Turtle (${message})`] };
  }

  const graph = new Graph(quads);
  const problems: string[] = [];
  const profiles: AgentProfile[] = [];
  const subjects = uniqueTerms(quads.filter((q) => NICK_PREDICATES.includes(q.predicate.value)).map((q) => q.subject));
  for (const subject of subjects) {
    const nick = graph.firstLiteral(subject, NICK_PREDICATES)?.trim();
    if (!nick) {
      problems.push(`${file}: foaf:nick must be a non-empty literal`);
      continue;
    }
    if (profiles.some((p) => p.nick.toLowerCase() === nick.toLowerCase())) {
      problems.push(`${file}: nick "${nick}" is described twice; the second is ignored`);
      continue;
    }
    profiles.push(readAgent(graph, subject, nick, file));
  }
  if (subjects.length === 0) problems.push(`${file}: no agent node with a foaf:nick; nothing to load`);
  return { profiles, problems };
}

function readAgent(graph: Graph, agent: Term, nick: string, file: string): AgentProfile {
  const types = graph.objects(agent, [RDF_TYPE]).map((t) => t.value);
  const capabilities = new Ordered();
  const kinds = new Ordered();

  // MFR classes describe a specialism ("logical reasoning"); the generic agent classes say nothing.
  for (const type of types) {
    if (type.startsWith(MFR) && !EXECUTION_TYPES.has(type)) capabilities.add(humanise(localName(type).replace(/Agent$/, "")));
  }
  for (const kind of graph.objects(agent, CONTRIBUTION_PREDICATES)) readKind(graph, kind, kinds, capabilities);
  for (const cap of graph.objects(agent, CAPABILITY_PREDICATES)) readCapability(graph, cap, capabilities, kinds);

  const description = graph.firstLiteral(agent, DESCRIPTION_PREDICATES)?.trim();
  const approvalFlag = graph.objects(agent, [REQUIRES_APPROVAL]).map(booleanOf).find((b) => b !== undefined);
  const actsInWorld = types.some((t) => EXECUTION_TYPES.has(t));
  const roles = graph.objects(agent, ROLE_PREDICATES).map((t) => (t.termType === "Literal" ? t.value : localName(t.value)).trim().toLowerCase());

  return {
    nick,
    ...(description ? { description: clip(description, MAX_TEXT) } : {}),
    supports: graph
      .objects(agent, [SUPPORTS])
      .map((t) => (t.termType === "BlankNode" ? graph.firstLiteral(t, LABEL_PREDICATES) ?? "" : t.value.trim()))
      .filter((s) => s !== "")
      .slice(0, MAX_VALUES),
    capabilities: capabilities.values().slice(0, MAX_VALUES),
    contributionKinds: STANDARD_KINDS.filter((k) => kinds.has(k)),
    requiresApproval: approvalFlag ?? actsInWorld,
    isChair: roles.includes("chair") || types.some((t) => CHAIR_TYPES.has(t)),
    file,
  };
}

/** A capability value: literal text, an IRI (its label if the file gives one, else its name), or a node of flags and labels. */
function readCapability(graph: Graph, term: Term, capabilities: Ordered, kinds: Ordered, depth = 0): void {
  // Turtle can make nodes refer to themselves; capability nodes are never deeper than this.
  if (depth > 3) return;
  if (term.termType === "Literal") {
    if (booleanOf(term) === undefined) capabilities.add(clip(term.value.trim(), MAX_TEXT));
    return;
  }
  const label = graph.firstLiteral(term, LABEL_PREDICATES)?.trim();
  const description = graph.firstLiteral(term, NODE_DESCRIPTION_PREDICATES)?.trim();
  let said = false;
  if (label || description) {
    capabilities.add(clip([label, description].filter(Boolean).join(": "), MAX_TEXT));
    said = true;
  }
  for (const q of graph.about(term)) {
    const property = q.predicate.value;
    if (CONTRIBUTION_PREDICATES.includes(property)) {
      readKind(graph, q.object, kinds, capabilities, depth + 1);
      said = true;
    } else if (booleanOf(q.object) === true) {
      const flag = localName(property);
      capabilities.add(humanise(flag));
      for (const [pattern, kind] of FLAG_KINDS) if (pattern.test(flag)) kinds.add(kind);
      said = true;
    }
  }
  // An IRI that the file does not describe still names the capability (`mfr:Orchestration`).
  if (!said && term.termType === "NamedNode") capabilities.add(humanise(localName(term.value)));
}

/** A contribution kind: one of the four MFR kinds (IRI, CURIE or bare name), or else a capability in words. */
function readKind(graph: Graph, term: Term, kinds: Ordered, capabilities: Ordered, depth = 0): void {
  if (term.termType === "BlankNode") return readCapability(graph, term, capabilities, kinds, depth + 1);
  const name = localName(term.value.trim().replace(/^mfr:/i, ""));
  const key = name.toLowerCase().replace(/[^a-z]/g, "");
  const standard = STANDARD_KINDS.find((k) => localName(k).toLowerCase() === key);
  if (standard) kinds.add(standard);
  else if (name) capabilities.add(humanise(name));
}

function booleanOf(term: Term): boolean | undefined {
  if (term.termType !== "Literal") return undefined;
  if (/^(true|1)$/i.test(term.value.trim())) return true;
  if (/^(false|0)$/i.test(term.value.trim())) return false;
  return undefined;
}

/** The last segment of an IRI: after `#`, else after the last `/` or `:`. */
export function localName(iri: string): string {
  const hash = iri.lastIndexOf("#");
  if (hash >= 0 && hash < iri.length - 1) return iri.slice(hash + 1);
  const parts = iri.split(/[/:]/).filter((p) => p !== "");
  return parts[parts.length - 1] ?? iri;
}

function uniqueTerms(terms: Term[]): Term[] {
  const out: Term[] = [];
  for (const t of terms) if (!out.some((o) => o.equals(t))) out.push(t);
  return out;
}

/** Insertion-ordered set of strings, compared case-insensitively, so one capability is not listed twice. */
class Ordered {
  private readonly seen = new Map<string, string>();
  add(value: string): void {
    const key = value.toLowerCase();
    if (value && !this.seen.has(key)) this.seen.set(key, value);
  }
  has(value: string): boolean {
    return this.seen.has(value.toLowerCase());
  }
  values(): string[] {
    return [...this.seen.values()];
  }
}

/** Just enough of a graph for reading one small profile. */
class Graph {
  constructor(private readonly quads: Quad[]) {}

  about(subject: Term): Quad[] {
    return this.quads.filter((q) => q.subject.equals(subject));
  }

  objects(subject: Term, predicates: readonly string[]): Term[] {
    return this.quads.filter((q) => q.subject.equals(subject) && predicates.includes(q.predicate.value)).map((q) => q.object);
  }

  /** The first literal among the predicates, in the order the predicates are listed (most specific first). */
  firstLiteral(subject: Term, predicates: readonly string[]): string | undefined {
    for (const predicate of predicates) {
      const literal = this.objects(subject, [predicate]).find((t) => t.termType === "Literal" && t.value.trim() !== "");
      if (literal) return literal.value;
    }
    return undefined;
  }
}
