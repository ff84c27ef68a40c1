/** One plan step as docs/protocol.md writes it: `name(arg, …)` or `(name arg …)`. */
import { readForms } from "./sexpr.js";

export interface PlanStep {
  /** Lower-cased action name. */
  action: string;
  /** Lower-cased object symbols. */
  args: string[];
}

/** A step longer than this is not a plan step. */
const MAX_STEP_LENGTH = 2_000;
const CALL = /^([^\s(),]+)\s*(?:\(([^()]*)\))?$/s;
/** A PDDL name: a letter, then letters, digits, `-` or `_`. Keeps a stray word or JSON from reading as an action. */
const NAME = /^[a-z][a-z0-9_-]*$/i;

/**
 * Reads one step. `name(a, b)`, `name(a b)`, `name()`, a bare `name`, and `(name a b)` are
 * accepted; anything else is undefined (the caller reports it as a malformed step).
 */
export function parsePlanStep(text: string): PlanStep | undefined {
  const trimmed = text.trim();
  if (trimmed === "" || trimmed.length > MAX_STEP_LENGTH) return undefined;
  if (trimmed.startsWith("(")) {
    const read = readForms(trimmed);
    if (!read.ok || read.forms.length !== 1) return undefined;
    const [form] = read.forms;
    if (form === undefined || form.kind !== "list") return undefined;
    const words = form.items.map((item) => (item.kind === "list" ? undefined : item.text));
    const [action, ...args] = words;
    if (action === undefined || !NAME.test(action) || args.some((a) => a === undefined)) return undefined;
    return { action, args: args as string[] };
  }
  const match = CALL.exec(trimmed);
  if (match === null || !NAME.test(match[1] ?? "")) return undefined;
  const args = (match[2] ?? "").split(/[\s,]+/).filter((a) => a !== "");
  // Commas with nothing between them are a typo that would silently shift arguments.
  if (match[2] !== undefined && /,\s*,|^\s*,|,\s*$/.test(match[2])) return undefined;
  return { action: (match[1] as string).toLowerCase(), args: args.map((a) => a.toLowerCase()) };
}
