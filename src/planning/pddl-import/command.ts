/**
 * `mfr-coordinator import-pddl DOMAIN PROBLEM [--out FILE]`: the import as a command. The
 * Turtle goes to stdout or FILE, a one-line summary and the notes to stderr; a refusal is one
 * `file:line:col: message` line (the way compilers say it, so editors jump there) and exit 1.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { formatRefusal, importPddl } from "./index.js";

/** Where the command writes; the CLI passes the process's streams, tests their own. */
export interface CommandOutput {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** Runs the import of the files at `domainPath` and `problemPath`; returns the exit code (0 done, 1 refused or unreadable). */
export function runImportPddl(domainPath: string, problemPath: string, out: string | undefined, io: CommandOutput): number {
  let domain: string;
  let problem: string;
  try {
    domain = readFileSync(domainPath, "utf8");
    problem = readFileSync(problemPath, "utf8");
  } catch (err) {
    io.stderr(`mfr-coordinator: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
  const result = importPddl(domain, problem);
  if (!result.ok) {
    io.stderr(`${formatRefusal(result.refusal, result.refusal.file === "domain" ? domainPath : problemPath)}\n`);
    return 1;
  }
  if (out === undefined) io.stdout(result.turtle);
  else {
    try {
      writeFileSync(out, result.turtle);
    } catch (err) {
      io.stderr(`mfr-coordinator: ${err instanceof Error ? err.message : String(err)}\n`);
      return 1;
    }
  }
  const { task, model } = result;
  const count = (n: number, what: string): string => `${n} ${what}${n === 1 ? "" : "s"}`;
  const summary = [
    count(model.objects.length, "object"),
    count(model.actions.length, "action"),
    count(task.initialState.length, "fact"),
    count(model.goals.length, "goal"),
    count(model.constraints.length, "constraint"),
    count(result.notes.length, "note"),
  ].join(", ");
  io.stderr(`mfr-coordinator: imported problem ${result.problemName} of domain ${result.domainName}${out === undefined ? "" : ` to ${out}`}: ${summary}\n`);
  for (const note of result.notes) io.stderr(`mfr-coordinator: note: ${note}\n`);
  return 0;
}
