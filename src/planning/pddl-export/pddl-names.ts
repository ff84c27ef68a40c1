/**
 * PDDL names for the symbols of a formal model. A PDDL name is a letter followed by letters,
 * digits, `-` and `_`; the model's symbols are lower-cased but otherwise whatever agents
 * wrote (`block a`, `0900`, `x.y`, `and`). The mapping, per name space:
 * - A symbol that is already a valid name, and no reserved word, keeps itself, always: so
 *   an unknown object or action named in a plan is written as it was, and can never be
 *   confused with a renamed one.
 * - Any other symbol is lower-cased, every character outside `a-z 0-9 - _` becomes `_`, a
 *   reserved word gets a trailing `_`, a name that does not start with a letter gets the
 *   name space's letter in front (`0900` → `o0900` for an object); if that is taken, `-2`,
 *   `-3`, … is appended. Symbols are handled in a fixed order, so the same model (and plans)
 *   always gives the same names.
 * - Every renaming is listed in the files' header comments (`"block a" -> block_a`), which
 *   is how to map a name back.
 * Reserved are PDDL's and PDDL3's keywords and the words VAL's reader takes for keywords
 * wherever they stand (`number`, `duration`, `start` and `end` after `at`, `all` after `over`).
 */

export type NameKind = "domain" | "type" | "object" | "predicate" | "function" | "action" | "variable";

export interface PddlRenaming {
  kind: NameKind;
  /** The model's symbol (with its arity for a predicate or function used with several). */
  from: string;
  to: string;
}

const PDDL_NAME = /^[a-z][a-z0-9_-]*$/;

export const RESERVED: ReadonlySet<string> = new Set([
  "define", "domain", "problem", "object", "either", "number",
  "and", "or", "not", "imply", "forall", "exists", "when",
  "increase", "decrease", "assign", "scale-up", "scale-down",
  "always", "sometime", "within", "at-most-once", "sometime-after", "sometime-before", "always-within",
  "hold-during", "hold-after", "preference", "is-violated", "minimize", "maximize", "total-time",
  "duration", "start", "end", "all",
]);

/** Whether `text` can stand as a PDDL name as it is. */
export function isPddlName(text: string): boolean {
  return PDDL_NAME.test(text) && !RESERVED.has(text);
}

const PREFIX: Record<NameKind, string> = { domain: "d", type: "t", object: "o", predicate: "p", function: "f", action: "a", variable: "v" };

/** The valid name a symbol is turned into before uniqueness is settled. */
export function sanitiseName(text: string, kind: NameKind): string {
  let name = text.toLowerCase().replace(/[^a-z0-9_-]/g, "_");
  if (RESERVED.has(name)) name = `${name}_`;
  if (!/^[a-z]/.test(name)) name = `${PREFIX[kind]}${name}`;
  return name;
}

export interface NameRequest {
  /** What identifies the thing named (a symbol; for predicates `name/arity`). */
  key: string;
  /** The symbol the model uses. */
  wanted: string;
  /** How it is shown in the renaming list. */
  label?: string;
}

/**
 * Gives every key of one name space a distinct PDDL name: first the requests that are valid
 * names claim them (in the given order), then the rest are sanitised and numbered.
 */
export function allocateNames(kind: NameKind, requests: readonly NameRequest[], renamed: PddlRenaming[]): Map<string, string> {
  const names = new Map<string, string>();
  const taken = new Set<string>();
  for (const r of requests) {
    if (names.has(r.key) || !isPddlName(r.wanted) || taken.has(r.wanted)) continue;
    names.set(r.key, r.wanted);
    taken.add(r.wanted);
  }
  for (const r of requests) {
    if (names.has(r.key)) continue;
    const base = sanitiseName(r.wanted, kind);
    let name = base;
    for (let i = 2; taken.has(name) || RESERVED.has(name); i += 1) name = `${base}-${i}`;
    names.set(r.key, name);
    taken.add(name);
    renamed.push({ kind, from: r.label ?? r.wanted, to: name });
  }
  return names;
}
