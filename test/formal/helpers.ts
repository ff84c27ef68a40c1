import { readFileSync } from "node:fs";
import { Parser } from "n3";
import type { Quad } from "n3";
import { readFormalModel } from "../../src/formal/model.js";
import type { FormalModel } from "../../src/formal/model.js";

export const BASE = "http://purl.org/stuff/mfr/session/s1/";

const PREFIXES = "@prefix mfr: <http://purl.org/stuff/mfr/> .\n@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n";

/** Quads of a Turtle text, relative IRIs against the session base, in one contribution's graph (as the merged model keeps them). */
export function quadsOf(turtle: string, graph = `${BASE}contribution/alice`): Quad[] {
  const prefixes = turtle.match(/^@prefix[^\n]*\n/gm) ?? [];
  const body = turtle.replace(/^@prefix[^\n]*\n/gm, "");
  const parser = new Parser({ baseIRI: BASE, format: "application/trig" });
  return parser.parse(`${PREFIXES}${prefixes.join("")}<${graph}> {\n${body}\n}`);
}

/** The formal model of a Turtle text. */
export function modelOf(turtle: string): FormalModel {
  return readFormalModel(quadsOf(turtle));
}

export function fixture(name: string): string {
  return readFileSync(new URL(`../fixtures/formal/${name}`, import.meta.url), "utf8");
}
