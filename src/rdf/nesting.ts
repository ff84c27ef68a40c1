/**
 * How deeply one contribution nests anonymous nodes inside each other.
 *
 * n3 parses any depth, and today's merge, SHACL validation and serialiser cope with a chain
 * 20,000 deep (measured). But no real model looks like that (peers nest two or three
 * levels), and any code that walks nested nodes or RDF lists recursively, such as reading
 * an action's parameter list, would need its own guard. Refusing deep text here, with its
 * line, makes that one rule at the edge. n3's own lexer finds the brackets, so strings,
 * IRIs and comments that contain them are not miscounted.
 */
import { Lexer } from "n3";
import type { Token } from "n3";
import type { ParseError } from "./syntax-error.js";

/**
 * Real peers write `[ … ]` two or three deep (an action's precondition, a list of
 * parameters); 32 is far past that and far from any stack limit.
 */
export const MAX_TURTLE_NESTING = 32;

/**
 * Tokens that open or close one level: property lists, collections, and the RDF 1.2 triple
 * terms and annotations n3 accepts in Turtle. N3 formulas (`{ … }`) are not Turtle: n3
 * refuses them with a syntax error of its own.
 */
const OPENERS: ReadonlySet<string> = new Set(["[", "(", "{|", "<<", "<<("]);
const CLOSERS: ReadonlySet<string> = new Set(["]", ")", "|}", ">>", ")>>"]);

/**
 * A ParseError at the first bracket that opens level `max + 1`, or undefined when the text
 * stays within `max` levels. Text that does not tokenise is left to the parser, which
 * reports that error with its own line and hint.
 */
export function checkNesting(turtle: string, max: number = MAX_TURTLE_NESTING): ParseError | undefined {
  let tokens: Token[];
  try {
    tokens = new Lexer({ n3: false }).tokenize(turtle);
  } catch {
    // Not Turtle at all: the parser, run next on the same text, says where and why.
    return undefined;
  }
  const guard = nestingGuard(max);
  for (const token of tokens) {
    const error = guard(token);
    if (error) return error;
  }
  return undefined;
}

/**
 * The same rule token by token, for a parser that reports its tokens as it reads them
 * (parse.ts): a ParseError at the first token that opens level `max + 1`.
 */
export function nestingGuard(max: number = MAX_TURTLE_NESTING): (token: Token) => ParseError | undefined {
  let depth = 0;
  return (token) => {
    if (CLOSERS.has(token.type)) depth = Math.max(0, depth - 1);
    else if (OPENERS.has(token.type) && ++depth > max) return tooDeep(token, max);
    return undefined;
  };
}

/** Thrown while lexing when the text nests too deeply; carries the error to report. */
export class NestingTooDeep extends Error {
  constructor(readonly error: ParseError) {
    super(error.message);
  }
}

/**
 * n3 (2.x) lexes a whole string through `_tokenizeString`, handing each token to the parser
 * as it is read, unless the parse observes tokens (`onToken`): then it first lexes the whole
 * text into one array of tokens, which at 100k triples made our parse twice as slow as n3's
 * and at 1M held millions of tokens at once. Its typings leave the method out.
 */
interface StreamingLexer {
  _tokenizeString(input: string, callback: (error: Error | null, token: Token) => void): void;
}

/** Whether this n3 lexes strings token by token (see StreamingLexer); a test pins it. */
export const lexerStreamsTokens = typeof (Lexer.prototype as unknown as Partial<StreamingLexer>)._tokenizeString === "function";

/**
 * A Turtle lexer for n3's Parser (its `lexer` option) that applies the nesting rule to each
 * token as it is read and throws NestingTooDeep at the first token past `max`; the parse
 * stops there, and the exception reaches the parser's caller unchanged. Undefined when this
 * n3 does not lex token by token: the caller then observes tokens itself.
 */
export function nestingGuardedLexer(max: number = MAX_TURTLE_NESTING): Lexer | undefined {
  if (!lexerStreamsTokens) return undefined;
  const lexer = new Lexer({ n3: false });
  const streaming = lexer as unknown as StreamingLexer;
  const tokenizeString = streaming._tokenizeString.bind(lexer);
  const guard = nestingGuard(max);
  streaming._tokenizeString = (input, callback) =>
    tokenizeString(input, (error, token) => {
      if (error === null && token !== undefined) {
        const tooDeep = guard(token);
        if (tooDeep) throw new NestingTooDeep(tooDeep);
      }
      callback(error, token);
    });
  return lexer;
}

function tooDeep(token: Token, max: number): ParseError {
  // n3's tokens carry their 0-based column as `start`, which its typings leave out.
  const start: unknown = (token as { start?: unknown }).start;
  const column = typeof start === "number" ? start + 1 : null;
  const where = column === null ? `line ${token.line}` : `line ${token.line}, column ${column}`;
  return {
    message:
      `Turtle nested too deeply at ${where}: more than ${max} levels of [ … ], ( … ) or << … >> inside each other. ` +
      "Give the inner nodes names (_:n1) and describe each in a statement of its own",
    line: token.line,
    column,
    refused: true,
  };
}
