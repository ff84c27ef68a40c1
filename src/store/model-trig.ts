/**
 * The merged model of a session as TriG, rebuilt from its contributions' Turtle when no
 * model was saved (a session that never reached validation, or a store written before
 * artefacts were kept). Built exactly as the model worker builds it (same base IRI, graph
 * IRIs, blank-node prefixes and coordinator graph), so it matches a saved `model-trig`.
 */
import { parseContribution } from "../rdf/parse.js";
import { mergeContributions, problemModelIriFor } from "../rdf/merge.js";
import type { ContributionGraph } from "../rdf/merge.js";
import { modelToTrig } from "../rdf/serialize.js";
import { sessionBaseIri } from "../base/vocab.js";
import type { Session } from "../session/types.js";

/** A model rebuilt from contributions: the TriG, and the contributions that could not be read again. */
export interface RebuiltTrig {
  trig: string;
  /** Contributions left out because they no longer parse (each one line). */
  skipped: string[];
}

/** `http://purl.org/stuff/mfr/session/<id>/contribution/<agent>`: one named graph per contribution. */
export function contributionGraphIri(sessionId: string, agent: string): string {
  return `${sessionBaseIri(sessionId)}contribution/${encodeURIComponent(agent)}`;
}

/**
 * The session's merged model as TriG, rebuilt from its contributions as the model worker
 * merges them; a contribution that no longer parses is named in `skipped`, not fatal.
 */
export function contributionsTrig(session: Pick<Session, "id" | "problem" | "contributions">): RebuiltTrig {
  const base = sessionBaseIri(session.id);
  const { graphs, skipped } = contributionGraphs(session);
  const model = mergeContributions(
    { sessionId: session.id, problemDescription: session.problem, problemModelIri: problemModelIriFor(base), coordinatorGraphIri: `${base}coordinator` },
    graphs,
  );
  return { trig: modelToTrig(model.store), skipped };
}

/**
 * The session's contributions parsed as the model worker parses them (oldest first, same
 * base IRI, graph IRIs and blank-node prefixes), with those that no longer parse named.
 */
export function contributionGraphs(session: Pick<Session, "id" | "contributions">): { graphs: ContributionGraph[]; skipped: string[] } {
  const base = sessionBaseIri(session.id);
  const skipped: string[] = [];
  const graphs: ContributionGraph[] = [];
  // The core hands contributions to the worker oldest first; the blank-node prefixes follow that order.
  const contributions = Object.values(session.contributions).sort((a, b) => a.receivedAt - b.receivedAt);
  contributions.forEach((c, index) => {
    const graphIri = contributionGraphIri(session.id, c.agent);
    const outcome = parseContribution(c.turtle, {
      baseIri: base,
      graphIri,
      // It was accepted once; a limit changed since must not drop it from the record.
      maxTriples: Number.MAX_SAFE_INTEGER,
      blankNodePrefix: `c${index}_`,
    });
    if (outcome.ok) graphs.push({ agent: c.agent, graphIri, quads: outcome.quads });
    else skipped.push(`${c.agent}: ${outcome.error.message}`);
  });
  return { graphs, skipped };
}
