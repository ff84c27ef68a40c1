/**
 * The room as the shell saw it when an input arrived, handed to the core as data: who might
 * be asked to work, and why the coordinator takes each for an agent. Choosing agents is a
 * rule of the core, but the room is live; carrying the room in the logged input keeps the
 * core pure, so a replay of the log chooses exactly as live did.
 */

/**
 * Why an occupant is taken for an agent, strongest first: a peer profile names it, it
 * advertises Lingue disco#info features, it sent protocol messages (now or in an earlier
 * session, remembered across restarts), a Chair's consensus named it. An occupant with none
 * of these that is not known as a person (it never typed a command, it did not ask) might
 * still be an agent: existing agents have no profile and advertise nothing.
 */
export type EvidenceKind = "profile" | "disco" | "protocol" | "consensus";

/** The evidence kinds strongest first, as the comment on EvidenceKind ranks them; lists of evidence are shown in this order. */
export const EVIDENCE_ORDER: readonly EvidenceKind[] = ["profile", "disco", "protocol", "consensus"];

/** One occupant that may be asked to work. */
export interface Candidate {
  /** The room nick now. */
  nick: string;
  /** The identity key behind the nick (see xmpp/occupant-identity.ts), when known. */
  identity?: string;
  /** What makes it an agent; empty for an occupant that only might be one. */
  evidence: EvidenceKind[];
  /** Contributions and proposals seen from this identity, over every session. */
  contributions: number;
  proposals: number;
  /** What it declares it can do (profile, Lingue modes), as text; empty when it declares nothing. */
  declared: Declared;
  /** One short phrase of what it offers, for a person choosing. */
  offers: string;
  /** Acts in the world: asked only with a person's approval. */
  needsApproval: boolean;
}

/**
 * What a candidate says it can do, as text the selection matches problem words against
 * (selection-match.ts). Every field is empty ("" or []) when nothing is declared.
 */
export interface Declared {
  capabilities: string;
  /** MFR contribution kinds (full IRIs). */
  kinds: string[];
  description: string;
  /** Specific Lingue modes, in words ("prolog program"). */
  modes: string;
}

/**
 * The room at the time of one input, carried in the logged input so that choosing agents
 * stays a pure function of the log (replay chooses as live did). Built by the shell.
 */
export interface RoomView {
  /** Present occupants that may be asked: not the coordinator, not the Chair, not known people. */
  candidates: Candidate[];
  /** Known agents that are not in the room now (so a consensus naming one can say so). */
  absent: string[];
}

/** A room with nobody to ask. */
export const EMPTY_ROOM: RoomView = { candidates: [], absent: [] };

/** True when the candidate declares anything a problem's words could match. */
export function declaresSomething(c: Candidate): boolean {
  const d = c.declared;
  return d.capabilities !== "" || d.kinds.length > 0 || d.description !== "" || d.modes !== "";
}

/**
 * Known to answer contribution requests: declared by a profile or Lingue features, or it
 * speaks the protocol (it contributed before, or announced itself with a protocol message).
 * Only being named in a consensus, or nothing at all, is not enough.
 */
export function answersRequests(c: Candidate): boolean {
  return c.evidence.includes("profile") || c.evidence.includes("disco") || c.evidence.includes("protocol");
}

/**
 * An agent that proposes plans without modelling (a planner such as the reference solver):
 * it has proposed but never contributed, or its profile declares solutions and no model kind.
 * The solution window waits for it although it contributed nothing to the model.
 */
export function solvesOnly(c: Candidate): boolean {
  // A profile that declares a model kind makes it a modeller, whatever it did so far.
  if (!answersRequests(c) || c.contributions > 0 || c.declared.kinds.length > 0) return false;
  return c.proposals > 0 || /generates solutions|plan generation/i.test(c.declared.capabilities);
}
