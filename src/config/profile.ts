import { readFileSync } from "node:fs";
import { nearestWord } from "../base/spelling.js";
import { pathToFileURL } from "node:url";
import { Parser, type Quad, type Term } from "n3";
import { ConfigError, shown } from "./errors.js";
import {
  CHECKED_NAMESPACES,
  MFR_CONFIG,
  MFR_ROOMS,
  PROFILE_PROPERTIES,
  XMPP_ACCOUNT,
  curieOf,
  type ProfileNode,
  type ProfileProperty,
} from "./profile-vocab.js";

/** Values read from a profile, keyed as in PROFILE_PROPERTIES; absent keys were not in the file. */
export type ProfileValues = Partial<Record<string, string | number | boolean | string[]>>;

/** Reads and parses the coordinator's RDF profile. Throws ConfigError with a one-line message. */
export function readProfile(path: string): ProfileValues {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new ConfigError(path, "profile", "is not readable", (err as NodeJS.ErrnoException).code ?? String(err));
  }
  return parseProfile(text, path);
}

export function parseProfile(text: string, path: string): ProfileValues {
  let quads: Quad[];
  try {
    // The base makes `<#coordinator>` a proper IRI; profiles are never dereferenced.
    quads = new Parser({ baseIRI: pathToFileURL(path).href }).parse(text);
  } catch (err) {
    const line = (err as { context?: { line?: number } }).context?.line;
    throw new ConfigError(path, line === undefined ? "Turtle" : `line ${line}`, `is not valid Turtle (${(err as Error).message.split("\n")[0]})`);
  }

  const agentNode = findAgentNode(quads, path);
  const nodes: Record<ProfileNode, Term | undefined> = {
    agent: agentNode,
    account: objectOf(quads, agentNode, XMPP_ACCOUNT),
    mfr: objectOf(quads, agentNode, MFR_CONFIG),
    rooms: roomsNodeOf(quads, agentNode, path),
  };

  checkForTypos(quads, nodes, path);
  checkPhaseRoomsPlacement(quads, nodes, path);

  const values: ProfileValues = {};
  for (const property of PROFILE_PROPERTIES) {
    const node = nodes[property.node];
    if (!node) continue;
    const objects = quads.filter((q) => q.subject.equals(node) && q.predicate.value === property.iri).map((q) => q.object);
    if (objects.length === 0) continue;
    values[property.key] = readValue(property, objects, path);
  }
  return values;
}

function findAgentNode(quads: Quad[], path: string): Term {
  const subjects = uniqueTerms(quads.filter((q) => q.predicate.value === XMPP_ACCOUNT).map((q) => q.subject));
  if (subjects.length === 1 && subjects[0]) return subjects[0];
  if (subjects.length === 0) {
    throw new ConfigError(path, "agent:xmppAccount", "is missing: expected one agent node with agent:xmppAccount [ xmpp:service …; xmpp:domain …; xmpp:username …; xmpp:passwordKey … ]");
  }
  throw new ConfigError(path, "agent:xmppAccount", "expected exactly one agent node with an XMPP account", `${subjects.length}`);
}

/** `agent:mfrRooms` must be a node holding the room properties; a plain JID there would be silently ignored. */
function roomsNodeOf(quads: Quad[], agentNode: Term, path: string): Term | undefined {
  const node = objectOf(quads, agentNode, MFR_ROOMS);
  if (node?.termType === "Literal") {
    throw new ConfigError(path, "agent:mfrRooms", 'expected a node such as [ mfr:constructRoom "construct@conference.example" ; mfr:reasonRoom "reason@conference.example" ]', shown(node.value));
  }
  return node;
}

/**
 * A phase room written on the agent node or inside agent:mfrConfig is a known property in
 * the wrong place: reading nothing there would quietly leave the phase without its room.
 */
function checkPhaseRoomsPlacement(quads: Quad[], nodes: Record<ProfileNode, Term | undefined>, path: string): void {
  const roomProperties = PROFILE_PROPERTIES.filter((p) => p.node === "rooms");
  for (const [where, node] of Object.entries(nodes) as Array<[ProfileNode, Term | undefined]>) {
    if (!node || where === "rooms" || (nodes.rooms && node.equals(nodes.rooms))) continue;
    const misplaced = roomProperties.find((p) => quads.some((q) => q.subject.equals(node) && q.predicate.value === p.iri));
    if (misplaced) throw new ConfigError(path, misplaced.curie, "belongs inside agent:mfrRooms [ … ] on the agent node");
  }
}

function objectOf(quads: Quad[], subject: Term, predicate: string): Term | undefined {
  return quads.find((q) => q.subject.equals(subject) && q.predicate.value === predicate)?.object;
}

function uniqueTerms(terms: Term[]): Term[] {
  const out: Term[] = [];
  for (const t of terms) if (!out.some((o) => o.equals(t))) out.push(t);
  return out;
}

function readValue(property: ProfileProperty, objects: Term[], path: string): string | number | boolean | string[] {
  const literal = (t: Term): string => {
    if (t.termType === "Literal" || t.termType === "NamedNode") return t.value;
    throw new ConfigError(path, property.curie, "expected a literal value", "a blank node");
  };
  if (property.kind === "strings") return objects.map(literal);
  if (objects.length > 1) {
    throw new ConfigError(path, property.curie, "expected one value", `${objects.length} values`);
  }
  const term = objects[0] as Term;
  const text = literal(term).trim();
  switch (property.kind) {
    case "string":
      return text;
    case "integer": {
      if (!/^[+]?\d+$/.test(text)) throw new ConfigError(path, property.curie, "expected a whole number (milliseconds for timeouts)", shown(text));
      return Number(text);
    }
    case "boolean": {
      if (/^(true|1)$/i.test(text)) return true;
      if (/^(false|0)$/i.test(text)) return false;
      throw new ConfigError(path, property.curie, "expected true or false", shown(text));
    }
  }
}

/**
 * An unknown property in one of our namespaces that is close to a known one is almost
 * certainly a typo; failing on it beats silently running with a default.
 */
function checkForTypos(quads: Quad[], nodes: Record<ProfileNode, Term | undefined>, path: string): void {
  const known = new Set([...PROFILE_PROPERTIES.map((p) => p.iri), XMPP_ACCOUNT, MFR_CONFIG, MFR_ROOMS]);
  const candidates = [...known];
  for (const node of Object.values(nodes)) {
    if (!node) continue;
    for (const q of quads) {
      if (!q.subject.equals(node)) continue;
      const iri = q.predicate.value;
      if (known.has(iri)) continue;
      const ns = Object.keys(CHECKED_NAMESPACES).find((n) => iri.startsWith(n));
      if (!ns) continue;
      const nearest = nearestWord(iri, candidates.filter((c) => c.startsWith(ns)));
      if (nearest) {
        throw new ConfigError(path, curieOf(iri), `is not a known property; did you mean ${curieOf(nearest)}?`);
      }
    }
  }
}
