/**
 * Asking a person to choose agents when selection cannot tell, and applying their answer
 * (`use 1,3` or `use all`). The options are numbered once, in the question, and the answer
 * refers to those numbers, so the question and the choice must come from the same options.
 */
import type { SelectionOption, SelectionOutcome } from "./selection.js";

export function clarificationQuestion(sessionId: string, outcome: Extract<SelectionOutcome, { kind: "unclear" }>): string {
  if (outcome.options.length === 0) {
    return `Session ${sessionId} needs clarification: ${outcome.why}. There are no agents to choose from; try again when agents have joined, or cancel with "mfr-cancel ${sessionId}".`;
  }
  const lines = [`Session ${sessionId} needs clarification: ${outcome.why}. Which agents should work on it?`];
  for (const option of outcome.options) lines.push(`${option.number}. ${option.agent}: ${option.reason}`);
  const example = outcome.options.length >= 3 ? "use 1,3" : outcome.options.length === 2 ? "use 1,2" : "use 1";
  lines.push(`Answer "${example}" (numbers from the list) or "use all".`);
  return lines.join("\n");
}

/** The agents a person chose, in the order of the options; numbers not on the list are an error naming them. */
export function applyChoice(options: readonly SelectionOption[], choice: "all" | readonly number[]): { agents: string[] } | { error: string } {
  if (options.length === 0) return { error: "there are no options to choose from" };
  if (choice === "all") return { agents: options.map((o) => o.agent) };
  if (choice.length === 0) return { error: `choose at least one number from 1 to ${options.length}, or "use all"` };
  const unknown = [...new Set(choice.filter((n) => !options.some((o) => o.number === n)))];
  if (unknown.length > 0) {
    const range = options.length === 1 ? "1" : `1 to ${options.length}`;
    return { error: `no option ${unknown.join(", ")}: choose from ${range}, or "use all"` };
  }
  return { agents: options.filter((o) => choice.includes(o.number)).map((o) => o.agent) };
}
