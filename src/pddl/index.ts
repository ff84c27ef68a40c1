/**
 * PDDL in: a planning domain and problem read into the project's formal model and written as
 * one Turtle contribution that follows docs/protocol.md's formal-model conventions.
 * (Interface first; the reader lands with issue 30.)
 */
import type { FormalModel } from "../formal/model.js";

/** Why a domain or problem was refused: the file, where, and the construct named. */
export interface PddlRefusal {
  file: "domain" | "problem";
  line: number;
  column: number;
  /** The construct, as written: `:durative-action`, `:derived`, `(sometime …)`. */
  construct: string;
  /** One readable sentence. */
  message: string;
}

export interface PddlImportOptions {
  /** The IRI the contribution's nodes are minted under; a urn of the domain and problem names by default. */
  base?: string;
}

export type PddlImport =
  | {
      ok: true;
      /** Exactly what `readFormalModel` gives for `turtle`. */
      model: FormalModel;
      turtle: string;
      domainName: string;
      problemName: string;
      /** What the conventions cannot carry as formal parts but the contribution keeps as notes (e.g. `:metric`). */
      notes: string[];
    }
  | { ok: false; refusal: PddlRefusal };

export function importPddl(domainText: string, problemText: string, options: PddlImportOptions = {}): PddlImport {
  void domainText;
  void problemText;
  void options;
  return { ok: false, refusal: { file: "domain", line: 1, column: 1, construct: "define", message: "PDDL import is not built yet" } };
}
