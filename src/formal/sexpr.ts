/**
 * The S-expression reader under the PDDL expression parser: tokens with their 1-based
 * line/column inside the literal, nesting and length bounded, and no exception on any input.
 */

/** Where in a literal something went wrong, 1-based like an editor shows it. */
export interface SourcePosition {
  line: number;
  column: number;
}

/** A parse failure: the position inside the literal and one readable message. */
export interface ExpressionError extends SourcePosition {
  message: string;
}

export type SExpr =
  | { kind: "list"; items: SExpr[]; line: number; column: number }
  | { kind: "symbol"; text: string; line: number; column: number }
  | { kind: "number"; value: number; text: string; line: number; column: number };

/** Bounds that keep one literal's parse cheap whatever an agent sends. */
export const EXPRESSION_LIMITS = {
  /** Characters in one literal. */
  maxLength: 20_000,
  /** Parentheses open at once. */
  maxDepth: 48,
} as const;

export type ReadOutcome = { ok: true; forms: SExpr[] } | { ok: false; error: ExpressionError };

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

/** Bounds on one read; literals use EXPRESSION_LIMITS, a whole PDDL file may pass wider ones. */
export interface ReadLimits {
  maxLength: number;
  maxDepth: number;
}

/**
 * Reads every top-level form of `text`. Line comments start with `;` as in PDDL.
 * Returns an error (never throws) on unbalanced parentheses, too deep nesting or too long text.
 */
export function readForms(text: string, limits: ReadLimits = EXPRESSION_LIMITS): ReadOutcome {
  if (text.length > limits.maxLength) {
    return fail(1, 1, `the expression is longer than ${limits.maxLength} characters`);
  }
  const top: SExpr[] = [];
  const open: Extract<SExpr, { kind: "list" }>[] = [];
  let line = 1;
  let column = 1;
  let i = 0;
  const add = (form: SExpr): void => {
    const parent = open[open.length - 1];
    (parent === undefined ? top : parent.items).push(form);
  };
  while (i < text.length) {
    const ch = text[i] as string;
    if (ch === "\n") {
      line += 1;
      column = 1;
      i += 1;
      continue;
    }
    if (/\s/.test(ch)) {
      i += 1;
      column += 1;
      continue;
    }
    if (ch === ";") {
      while (i < text.length && text[i] !== "\n") {
        i += 1;
        column += 1;
      }
      continue;
    }
    if (ch === "(") {
      if (open.length >= limits.maxDepth) {
        return fail(line, column, `the expression nests deeper than ${limits.maxDepth} parentheses`);
      }
      const list: Extract<SExpr, { kind: "list" }> = { kind: "list", items: [], line, column };
      add(list);
      open.push(list);
      i += 1;
      column += 1;
      continue;
    }
    if (ch === ")") {
      if (open.pop() === undefined) return fail(line, column, "a closing parenthesis has no opening one");
      i += 1;
      column += 1;
      continue;
    }
    const start = i;
    const startColumn = column;
    while (i < text.length && !/[\s();]/.test(text[i] as string)) {
      i += 1;
      column += 1;
    }
    const word = text.slice(start, i);
    if (NUMBER.test(word)) add({ kind: "number", value: Number(word), text: word, line, column: startColumn });
    else add({ kind: "symbol", text: word.toLowerCase(), line, column: startColumn });
  }
  const unclosed = open[open.length - 1];
  if (unclosed !== undefined) return fail(unclosed.line, unclosed.column, "this parenthesis is never closed");
  return { ok: true, forms: top };
}

function fail(line: number, column: number, message: string): ReadOutcome {
  return { ok: false, error: { line, column, message } };
}
