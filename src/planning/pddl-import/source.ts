/**
 * A PDDL file as S-expressions with positions: the one `(define (domain|problem NAME) …)`
 * form, its sections, and the small helpers every other reader module shares (a form's head,
 * its text for the project's expression parsers, typed lists). The S-expressions come from
 * the project's own reader (src/formal/sexpr.ts), so symbols are lower-cased exactly as the
 * formal model lower-cases them, with wider bounds than one literal gets: a file is bigger.
 */
import { readForms } from "../../formal/sexpr.js";
import type { SExpr } from "../../formal/sexpr.js";
import { refuse } from "./refusal.js";
import type { At, PddlFile } from "./refusal.js";

/** Bounds on one file: large IPC problems are a few hundred KB and nest a dozen levels. */
export const FILE_LIMITS = { maxLength: 8_000_000, maxDepth: 400 } as const;

/** A parenthesised form. */
export type List = Extract<SExpr, { kind: "list" }>;

/** One file's `define`: its name, where the name is, and its sections in order. */
export interface DefinedFile {
  file: PddlFile;
  name: string;
  nameAt: At;
  sections: List[];
}

/** Reads `text` as one `(define (KIND NAME) …)`; refuses anything else, with a position. */
export function readDefine(text: string, file: PddlFile): DefinedFile {
  const read = readForms(text, FILE_LIMITS);
  if (!read.ok) refuse(file, read.error, "syntax", `${read.error.message}`);
  const [define, extra] = read.forms;
  if (define === undefined) refuse(file, undefined, "define", `the ${file} file is empty: expected (define (${file} NAME) …)`);
  if (define.kind !== "list" || headOf(define) !== "define") refuse(file, define, "define", `expected (define (${file} NAME) …), found ${preview(define)}`);
  if (extra !== undefined) refuse(file, extra, preview(extra), `unexpected text after the (define …) form`);
  const header = define.items[1];
  if (header?.kind !== "list" || headOf(header) !== file) refuse(file, header ?? define, "define", `expected (${file} NAME) after define`);
  const name = header.items[1];
  if (name?.kind !== "symbol" || header.items.length !== 2) refuse(file, header, `(${file} …)`, `(${file} NAME) takes one name`);
  const sections: List[] = [];
  for (const item of define.items.slice(2)) {
    if (item.kind !== "list" || !(headOf(item) ?? "").startsWith(":")) refuse(file, item, preview(item), `expected a section such as (:${file === "domain" ? "predicates" : "objects"} …), found ${preview(item)}`);
    sections.push(item);
  }
  return { file, name: name.text, nameAt: name, sections };
}

/** The symbol a list starts with, if it starts with one. */
export function headOf(form: SExpr | undefined): string | undefined {
  if (form?.kind !== "list") return undefined;
  const head = form.items[0];
  return head?.kind === "symbol" ? head.text : undefined;
}

/** A symbol's text, or undefined for a list or a number. */
export function symbolOf(form: SExpr | undefined): string | undefined {
  return form?.kind === "symbol" ? form.text : undefined;
}

/** A short quotation of a form for a message: `(sometime …)`, `:length`, `42`. */
export function preview(form: SExpr): string {
  if (form.kind === "symbol") return form.text;
  if (form.kind === "number") return form.text;
  const head = form.items[0];
  if (head === undefined) return "()";
  return `(${head.kind === "list" ? "(…)" : preview(head)}${form.items.length > 1 ? " …" : ""})`;
}

/** One name of a typed list, with the types written after it (`either` gives several; none when untyped). */
export interface TypedName {
  name: string;
  form: SExpr;
  types: string[];
  /** True when the type was `(either …)`. */
  either: boolean;
}

/**
 * `a b - t c - (either u v) d` → a: [t], b: [t], c: [u, v], d: []. Names are symbols or, where
 * `variables` is set, `?variables`. Refuses anything that is neither.
 */
export function typedList(items: readonly SExpr[], file: PddlFile, what: string, variables: boolean): TypedName[] {
  const out: TypedName[] = [];
  let pending: TypedName[] = [];
  for (let i = 0; i < items.length; i += 1) {
    const item = items[i] as SExpr;
    if (item.kind === "symbol" && item.text === "-") {
      const typeForm = items[i + 1];
      if (pending.length === 0) refuse(file, item, "-", `a type must follow a name in ${what}, as in a b - type`);
      const { types, either } = typeOf(typeForm, item, file, what);
      for (const p of pending) {
        p.types = types;
        p.either = either;
      }
      out.push(...pending);
      pending = [];
      i += 1;
      continue;
    }
    const text = symbolOf(item);
    if (text === undefined || text.startsWith("?") !== variables || text === "?") {
      refuse(file, item, preview(item), `expected ${variables ? "a ?variable" : "a name"} in ${what}, found ${preview(item)}`);
    }
    pending.push({ name: text, form: item, types: [], either: false });
  }
  out.push(...pending);
  return out;
}

function typeOf(form: SExpr | undefined, dash: SExpr, file: PddlFile, what: string): { types: string[]; either: boolean } {
  const single = symbolOf(form);
  if (single !== undefined && single !== "-" && !single.startsWith("?")) return { types: [single], either: false };
  if (form?.kind === "list" && headOf(form) === "either" && form.items.length > 1) {
    const members = form.items.slice(1).map((m) => {
      const t = symbolOf(m);
      if (t === undefined || t.startsWith("?") || t === "-") refuse(file, m, "either", `(either …) lists type names in ${what}`);
      return t;
    });
    return { types: [...new Set(members)], either: true };
  }
  return refuse(file, form ?? dash, form === undefined ? "-" : preview(form), `expected a type name or (either …) after - in ${what}`);
}

/**
 * The text of a form for the project's expression parsers, on one line, with every
 * `- (either …)` replaced by `eitherName(…)`; `starts` records where each sub-form begins in
 * the text, so a parser's column leads back to the file's line and column.
 */
export function formText(form: SExpr, eitherName: (members: string[]) => string): { text: string; starts: { offset: number; form: SExpr }[] } {
  const starts: { offset: number; form: SExpr }[] = [];
  let text = "";
  const write = (f: SExpr): void => {
    starts.push({ offset: text.length, form: f });
    if (f.kind !== "list") {
      text += f.text;
      return;
    }
    text += "(";
    f.items.forEach((item, i) => {
      if (i > 0) text += " ";
      const before = f.items[i - 1];
      const members = item.kind === "list" && headOf(item) === "either" ? item.items.slice(1) : [];
      // Only a well-formed (either a b …) is replaced; anything else is left for the parser to refuse.
      if (before?.kind === "symbol" && before.text === "-" && members.length > 0 && members.every((m) => m.kind === "symbol" && !m.text.startsWith("?"))) {
        starts.push({ offset: text.length, form: item });
        text += eitherName(members.map((m) => (m.kind === "symbol" ? m.text : "")));
      } else write(item);
    });
    text += ")";
  };
  write(form);
  return { text, starts };
}

/** The sub-form that starts at or last before a column (1-based) of a text built by `formText`. */
export function formAt(starts: readonly { offset: number; form: SExpr }[], column: number, fallback: SExpr): SExpr {
  let found: SExpr = fallback;
  for (const s of starts) {
    if (s.offset > column - 1) break;
    found = s.form;
  }
  return found;
}

/** The parts of a top-level `(and …)`, or the form itself; `()` is no part at all. */
export function conjuncts(form: SExpr): SExpr[] {
  if (form.kind === "list" && form.items.length === 0) return [];
  return headOf(form) === "and" && form.kind === "list" ? form.items.slice(1) : [form];
}
