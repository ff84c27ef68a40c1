/**
 * JSON text from a peer, parsed under explicit limits.
 *
 * `JSON.parse` accepts anything well-formed, but what it returns is stored in the durable
 * log, cloned and sent again later: a value nested 10,000 deep parses fine and then makes
 * `JSON.stringify` or `structuredClone` throw a RangeError far from the edge. So the depth
 * is measured first, by a scan that skips string contents and costs nothing for deep input,
 * and the parsed value is then walked once for the other limits. A value that passes can be
 * stringified, cloned and walked recursively anywhere without care.
 */

/** The limits one JSON text must keep. */
export interface JsonLimits {
  /** Most arrays and objects nested inside each other (the top-level value counts as 1). */
  maxDepth: number;
  /** Most items in one array. */
  maxArrayLength: number;
  /** Most characters (UTF-16 code units) in one string, object keys included. */
  maxStringLength: number;
  /** Most keys in one object. */
  maxObjectKeys: number;
  /** Most values in the whole text, arrays and objects included. */
  maxValues: number;
}

/**
 * Real proposals nest 4 levels (`solution.satisfiesGoals[i].goal`) and action schemas
 * about 6; 32 leaves room for any honest extra field and keeps every recursive walk shallow.
 */
export const MAX_JSON_DEPTH = 32;
/**
 * A plan has tens of steps, an ActionSchema at most 1,000 actions (its own schema says so),
 * and our own ModelValidationResult at most 100 results: 10,000 is far beyond all of them.
 */
export const MAX_JSON_ARRAY_LENGTH = 10_000;
/**
 * Prosody drops a stanza over 256 KiB, so no string from one message can be longer. The limit
 * is that size, not less: an echoed SolutionRequest (another coordinator's) carries the whole
 * Turtle model, ~200 KB, in its `model` string, and must still be read and noted.
 */
export const MAX_JSON_STRING_LENGTH = 256 * 1024;
/** Real objects have a dozen keys; `issues` has one per agent. */
export const MAX_JSON_OBJECT_KEYS = 1_000;
/** A proposal holds about a hundred values, an ActionSchema of 1,000 actions about 10,000. */
export const MAX_JSON_VALUES = 50_000;

export const DEFAULT_JSON_LIMITS: Readonly<JsonLimits> = Object.freeze({
  maxDepth: MAX_JSON_DEPTH,
  maxArrayLength: MAX_JSON_ARRAY_LENGTH,
  maxStringLength: MAX_JSON_STRING_LENGTH,
  maxObjectKeys: MAX_JSON_OBJECT_KEYS,
  maxValues: MAX_JSON_VALUES,
});

/** Why a JSON text was refused; `message` is a readable sentence without a final stop. */
export type JsonReadError =
  | { kind: "syntax"; message: string }
  /** `path` locates the offending value (`solution.plan[3]`; "" for the whole text). */
  | { kind: "limit"; limit: keyof JsonLimits; path: string; message: string };

export type JsonReadResult = { ok: true; value: unknown } | { ok: false; error: JsonReadError };

export interface JsonReadOptions {
  limits?: Partial<JsonLimits>;
  /** What the whole text is called in messages, e.g. "the payload". */
  subject?: string;
}

/**
 * Parses `text` as JSON, refusing it (as a value, never an exception) when it is not JSON
 * or breaks one of the limits, e.g. `solution.extra is nested deeper than 32 levels`.
 */
export function readBoundedJson(text: string, options: JsonReadOptions = {}): JsonReadResult {
  const limits: JsonLimits = { ...DEFAULT_JSON_LIMITS, ...options.limits };
  const subject = options.subject ?? "the JSON text";
  const tooDeep = scanDepth(text, limits.maxDepth);
  if (tooDeep !== undefined) {
    return limitError("maxDepth", tooDeep, subject, `is nested deeper than ${limits.maxDepth} levels`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: { kind: "syntax", message: `${subject} is not valid JSON (${(err as Error).message})` } };
  }
  const broken = new LimitWalk(limits).check(value);
  return broken ? limitError(broken.limit, broken.path, subject, broken.problem) : { ok: true, value };
}

/** One step of a path to a value: an object key or an array index. */
type Segment = string | number;

/** Path segments shown before the rest is cut off with "…" (a depth error's path is long). */
const SHOWN_SEGMENTS = 6;
const SHOWN_KEY_LENGTH = 40;

function limitError(limit: keyof JsonLimits, path: readonly Segment[], subject: string, problem: string): JsonReadResult {
  const where = pathText(path);
  return { ok: false, error: { kind: "limit", limit, path: where, message: `${where || subject} ${problem}` } };
}

/** `solution.plan[3]`, `["odd key"].x`; long paths end in "…". */
export function pathText(path: readonly Segment[]): string {
  let text = "";
  for (const segment of path.slice(0, SHOWN_SEGMENTS)) {
    if (typeof segment === "number") text += `[${segment}]`;
    else if (/^[A-Za-z_$][\w$-]{0,39}$/.test(segment)) text += text ? `.${segment}` : segment;
    else text += `[${JSON.stringify(segment.length > SHOWN_KEY_LENGTH ? `${segment.slice(0, SHOWN_KEY_LENGTH)}…` : segment)}]`;
  }
  return path.length > SHOWN_SEGMENTS ? `${text}…` : text;
}

/** Where the scan is inside one array or object. */
interface Frame {
  isArray: boolean;
  /** The current item's index (arrays). */
  index: number;
  /** The current key's quoted text as [start, end) in the input (objects). */
  keyStart: number;
  keyEnd: number;
  /** Objects: the next string is a key. */
  expectKey: boolean;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The path to the first array or object nested deeper than `maxDepth`, or undefined. Only
 * brackets outside strings count; the text is not validated here (JSON.parse does that).
 */
function scanDepth(text: string, maxDepth: number): Segment[] | undefined {
  const frames: Frame[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = closingQuote(text, i);
      const frame = frames[frames.length - 1];
      if (frame && !frame.isArray && frame.expectKey) {
        frame.keyStart = i;
        frame.keyEnd = end + 1;
      }
      i = end;
      continue;
    }
    const frame = frames[frames.length - 1];
    switch (text[i]) {
      case "{":
      case "[":
        if (frames.length >= maxDepth) return pathOf(frames, text);
        frames.push({ isArray: text[i] === "[", index: 0, keyStart: -1, keyEnd: -1, expectKey: true });
        break;
      case "}":
      case "]":
        frames.pop();
        break;
      case ":":
        if (frame) frame.expectKey = false;
        break;
      case ",":
        if (frame?.isArray) frame.index++;
        else if (frame) frame.expectKey = true;
        break;
    }
  }
  return undefined;
}

/** Index of the quote closing the string opened at `open` (or the end of an unclosed one). */
function closingQuote(text: string, open: number): number {
  let at = open;
  for (;;) {
    at = text.indexOf('"', at + 1);
    if (at < 0) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
}

function pathOf(frames: readonly Frame[], text: string): Segment[] {
  return frames.map((f) => (f.isArray ? f.index : keyOf(text.slice(f.keyStart, f.keyEnd))));
}

function keyOf(quoted: string): string {
  if (quoted === "") return "?";
  try {
    const key: unknown = JSON.parse(quoted);
    return typeof key === "string" ? key : quoted;
  } catch {
    // A key with a bad escape: JSON.parse will refuse the text anyway; show it as written.
    return quoted;
  }
}

/** Walks a parsed value once, in document order, stopping at the first limit it breaks. */
class LimitWalk {
  private values = 0;
  private readonly path: Segment[] = [];

  constructor(private readonly limits: JsonLimits) {}

  check(value: unknown): { limit: keyof JsonLimits; path: Segment[]; problem: string } | undefined {
    const problem = this.visit(value);
    if (problem === undefined) return undefined;
    // The total is a property of the whole text, not of where the count ran out.
    return { ...problem, path: problem.limit === "maxValues" ? [] : [...this.path] };
  }

  /** Leaves `path` at the offending value when it finds one. Depth is already bounded. */
  private visit(value: unknown): { limit: keyof JsonLimits; problem: string } | undefined {
    const { limits } = this;
    if (++this.values > limits.maxValues) {
      return { limit: "maxValues", problem: `holds more than ${limits.maxValues} values in all` };
    }
    if (typeof value === "string") {
      return value.length > limits.maxStringLength
        ? { limit: "maxStringLength", problem: `is a string of ${value.length} characters, more than the ${limits.maxStringLength} allowed` }
        : undefined;
    }
    if (Array.isArray(value)) {
      if (value.length > limits.maxArrayLength) {
        return { limit: "maxArrayLength", problem: `is an array of ${value.length} items, more than the ${limits.maxArrayLength} allowed` };
      }
      for (let i = 0; i < value.length; i++) {
        this.path.push(i);
        const problem = this.visit(value[i]);
        if (problem) return problem;
        this.path.pop();
      }
      return undefined;
    }
    if (typeof value === "object" && value !== null) {
      const keys = Object.keys(value);
      if (keys.length > limits.maxObjectKeys) {
        return { limit: "maxObjectKeys", problem: `is an object with ${keys.length} keys, more than the ${limits.maxObjectKeys} allowed` };
      }
      for (const key of keys) {
        if (key.length > limits.maxStringLength) {
          return { limit: "maxStringLength", problem: `has a key of ${key.length} characters, more than the ${limits.maxStringLength} allowed` };
        }
        this.path.push(key);
        const problem = this.visit((value as Record<string, unknown>)[key]);
        if (problem) return problem;
        this.path.pop();
      }
    }
    return undefined;
  }
}
