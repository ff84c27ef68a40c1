/**
 * Turns whatever n3 threw while parsing a contribution into a `ParseError` that tells an
 * agent author where the problem is (line and column, 1-based) and what usually causes it.
 */

/** A contribution that could not be read, phrased for the agent that sent it. */
export interface ParseError {
  message: string;
  /** 1-based line of the problem, when known. */
  line: number | null;
  /** 1-based column of the problem, when known. */
  column: number | null;
  /** Readable Turtle, refused by a rule (a limit, no statements), not a syntax error. */
  refused?: true;
}

/** The parts of an n3 token that locate it: `start` is the 0-based column on `line`. */
interface N3Token {
  type?: string;
  line?: number;
  start?: number;
  end?: number;
}

/** n3 attaches `context` to its syntax errors; a lexer error has no `token`. */
interface N3ErrorContext {
  line?: number;
  token?: N3Token;
  previousToken?: N3Token;
}

const EXCERPT_WIDTH = 60;

/** What was thrown, as text: `String()` itself throws on an object whose `toString` is not a function. */
function thrownText(thrown: unknown): string {
  try {
    return String(thrown);
  } catch {
    return Object.prototype.toString.call(thrown);
  }
}

/**
 * Phrases an error thrown by n3 while parsing `text` for the agent: line and column (1-based)
 * where n3 gives them, a hint at the usual cause, and an excerpt of the line. Never throws;
 * an error it cannot place (not an Error, or no line) is said as it is, with line and column null.
 * @example
 * // n3's error for line 3 `<#b> a ex:Thing .`, with no `@prefix ex:`, becomes the message
 * // 'Turtle syntax error at line 3, column 8: Undefined prefix "ex:". Declare the prefix before
 * // using it, e.g. @prefix ex: <…> . Near: <#b> a ex:Thing .'
 */
export function describeSyntaxError(error: unknown, text: string): ParseError {
  if (!(error instanceof Error)) {
    return { message: `The Turtle could not be parsed: ${thrownText(error)}`, line: null, column: null };
  }
  const context = readContext(error);
  const line = context?.line ?? lineFromMessage(error.message);
  const problem = stripLineSuffix(error.message);
  if (line === null) {
    // Not a syntax error n3 could place (e.g. a stack overflow on absurd nesting).
    return { message: `The Turtle could not be parsed: ${problem}`, line: null, column: null };
  }
  const lineText = lineAt(text, line);
  const column = columnOf(context, problem, lineText);
  const where = column === null ? `line ${line}` : `line ${line}, column ${column}`;
  const hint = hintFor(problem, context, text);
  const near = lineText === null ? "" : ` Near: ${excerpt(lineText, column)}`;
  return {
    message: `Turtle syntax error at ${where}: ${problem}.${hint ? ` ${hint}` : ""}${near}`,
    line,
    column,
  };
}

function readContext(error: Error): N3ErrorContext | null {
  const context: unknown = (error as Error & { context?: unknown }).context;
  return typeof context === "object" && context !== null ? (context as N3ErrorContext) : null;
}

function lineFromMessage(message: string): number | null {
  const match = / on line (\d+)\.?$/.exec(message);
  return match?.[1] === undefined ? null : Number(match[1]);
}

function stripLineSuffix(message: string): string {
  return message.replace(/ on line \d+\.?$/, "").replace(/\.$/, "");
}

function lineAt(text: string, line: number): string | null {
  return text.split(/\r\n|\r|\n/)[line - 1] ?? null;
}

/**
 * The parser's errors carry the offending token with its column. The lexer's errors do
 * not, but they quote the offending text (`Unexpected "…"`), which we look for on the
 * error's line after the last good token.
 */
function columnOf(context: N3ErrorContext | null, problem: string, lineText: string | null): number | null {
  const token = context?.token;
  if (token && typeof token.start === "number" && token.line === context?.line) return token.start + 1;
  const quoted = /^Unexpected "([\s\S]*)"$/.exec(problem)?.[1];
  if (quoted === undefined || lineText === null || quoted === "") return null;
  const previous = context?.previousToken;
  const from = previous?.line === context?.line && typeof previous?.end === "number" ? previous.end : 0;
  const index = lineText.indexOf(quoted, from);
  return index < 0 ? null : index + 1;
}

function hintFor(problem: string, context: N3ErrorContext | null, text: string): string {
  const quoted = /^Unexpected "([\s\S]*)"$/.exec(problem)?.[1];
  if (quoted !== undefined && quoted !== "" && text.trimEnd().endsWith(quoted)) {
    return "The text ends in the middle of a statement: is it cut off?";
  }
  if (quoted !== undefined && (/^["']/.test(quoted) || context?.previousToken?.type === "literal")) {
    return 'A string is not closed or contains an unescaped quote: write \\" inside "…", or use """…""" for text with quotes or line breaks.';
  }
  const prefix = /^Undefined prefix "([^"]*):"/.exec(problem)?.[1];
  if (prefix !== undefined) return `Declare the prefix before using it, e.g. @prefix ${prefix}: <…> .`;
  if (/^Expected (dot|punctuation) to follow/.test(problem)) {
    // The parser notices at the next token; the dot is missing after the previous one.
    const previous = context?.previousToken;
    const after =
      typeof previous?.line === "number" && typeof previous.end === "number"
        ? ` after line ${previous.line}, column ${previous.end}`
        : "";
    return `A statement probably lacks its closing " ."${after} (or a ";" / "," between its parts).`;
  }
  if (/got eof$/.test(problem)) return "The text ends in the middle of a statement: is it cut off?";
  if (/^Token too long/.test(problem)) return "A single term is too long; shorten it.";
  return "";
}

function excerpt(lineText: string, column: number | null): string {
  const trimmed = lineText.trim();
  if (trimmed.length <= EXCERPT_WIDTH) return trimmed;
  const start = Math.max(0, (column ?? 1) - 1 - EXCERPT_WIDTH / 2);
  const slice = lineText.slice(start, start + EXCERPT_WIDTH).trim();
  return `${start > 0 ? "…" : ""}${slice}${start + EXCERPT_WIDTH < lineText.length ? "…" : ""}`;
}
