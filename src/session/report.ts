/**
 * Every sentence people read about a session: acknowledgements, stall reports, the final
 * summary, status and list lines. Pure functions of the session, so the core can call them.
 */
import { sessionBaseIri } from "../base/vocab.js";
import { clip, clipNear, inline, names, plural, quoted, seconds } from "../base/text.js";
import { namedFindings } from "./findings-line.js";
import { missingAgents } from "./windows.js";
import { formalSummaryOf, verdictWords } from "./verdicts.js";
import { sameAgent } from "./identity.js";
import { goalsSatisfied, rankedProposals } from "./ranking.js";
import type { Contribution, ContributionParts, ItemCounts, Requester, Session, ValidationFinding } from "./types.js";
import { localName, type InformalCount } from "../formal/index.js";


/**
 * The typed items of a contribution or model in words, zero counts left out.
 * @example describeCounts({ entities: 2, stateVariables: 0, actions: 1, constraints: 0, goals: 1 }) // "2 entities, 1 action, 1 goal"
 */
export function describeCounts(c: ItemCounts): string {
  const parts = [
    c.entities && plural(c.entities, "entity", "entities"),
    c.stateVariables && plural(c.stateVariables, "state variable"),
    c.actions && plural(c.actions, "action"),
    c.constraints && plural(c.constraints, "constraint"),
    c.goals && plural(c.goals, "goal"),
  ].filter(Boolean);
  return parts.length > 0 ? parts.join(", ") : "no typed items";
}

/** A session's contributions, oldest first. */
export function contributors(session: Session): Contribution[] {
  return Object.values(session.contributions).sort((a, b) => a.receivedAt - b.receivedAt);
}



/** Longest line the coordinator says in the primary room; detail goes to the log room. */
export const ROOM_LINE_MAX = 290;

export const sessionWording = {
  /** The round-1 request's body: the one line that says a session started. Names no agent. */
  requestBody: (s: Session) =>
    clip(
      `Session ${s.id} started by ${s.startedBy.nick}: ${quoted(s.problem, 150)}. Asking ${s.requestedAgents ? plural(s.requestedAgents.length, "chosen agent") : "all agents"} for model contributions, open for ${seconds(s.settings.contributionTimeoutMs)}.`,
      ROOM_LINE_MAX,
    ),
  contributionAccepted: (s: Session, c: Contribution, replaced: boolean, parts?: number) =>
    `Contribution ${replaced ? "replaced" : "received"} for ${s.id}${parts !== undefined ? ` (${plural(parts, "part")})` : ""}: ${plural(c.tripleCount, "triple")} (${describeCounts(c.counts)}).${c.requested ? "" : " You were not asked in this round, but it is accepted and attributed to you."}`,
  /** The location is said once: by the parser's message when it has it (rdf/syntax-error.ts), else here. */
  contributionUnparsable: (s: Session, message: string, line: number | null, column: number | null, kept: boolean, refused = false, parts?: ContributionParts) =>
    `${parts?.refusedPart !== undefined ? `Part ${parts.refusedPart}/${parts.n} of your contribution` : `Your contribution`} to ${s.id}${parts && parts.refusedPart === undefined ? ` (${plural(parts.n, "part")})` : ""} ${refused ? "was refused" : "is not valid Turtle"}${line !== null && !/\bline \d+/.test(message) ? ` at line ${line}${column !== null ? `, column ${column}` : ""}` : ""}: ${message.replace(/\.$/, "")}.${parts?.refusedPart !== undefined ? ` None of the ${plural(parts.n, "part")} is used.` : ""} ${kept ? "Your earlier contribution still stands; send" : "Nothing from you is in the model yet; send"} a corrected one${parts ? ", from part 1" : ""}.`,
  heldByAnother: (s: Session, nick: string, what: "contribution" | "proposal") =>
    `The nick ${nick} sent to ${s.id} earlier as someone else (another account, or an occupant who has since left the room); this ${what} was not accepted and theirs stands.`,
  contributionWhileValidating: (s: Session, kept: boolean) =>
    `The model of ${s.id} changed several times while it was being validated, so further changes wait: this contribution was not taken.${kept ? " Your earlier one stands." : ""} If the validation asks for fixes, send it then.`,
  notAllowed: (s: Session, action: string) =>
    `Only ${s.startedBy.nick}, who started ${s.id}, a room moderator, or someone on mfr:allowCommandsFrom may ${action} ${s.id}.`,
  cancelledByOther: (s: Session, by: Requester) =>
    `Your session ${s.id} was cancelled by ${by.nick}${by.standing === "moderator" ? " (a room moderator)" : by.standing === "allow-listed" ? " (on mfr:allowCommandsFrom)" : ""}.`,
  /** Says which window the contribution missed, and how late it came, so an agent can tell a slow answer from a lost one. */
  contributionTooLate: (s: Session, readable: boolean, now: number) =>
    s.phase === "complete"
      ? `Session ${s.id} is already complete; your contribution was not used.${missedWindow(s, "contributions", now)}`
      : `The model of ${s.id} is already closed and with the solvers; your contribution ${readable ? "is kept for the record but not merged" : "was not used (and is not valid Turtle)"}.${missedWindow(s, "contributions", now)}`,
  /** A contribution in parts that will not be completed; the sender is told once. */
  partsDropped: (id: string, got: { received: number; n: number }, why: "closed" | "complete" | "evicted", kept: boolean) =>
    `Your contribution to ${id} in ${plural(got.n, "part")} was not used: ${
      why === "closed"
        ? `only ${got.received} of its ${plural(got.n, "part")} had arrived when the model was closed`
        : why === "complete"
          ? `the session completed when only ${got.received} of its ${plural(got.n, "part")} had arrived`
          : `too many incomplete contributions were waiting for their parts and it was the least recently fed (${got.received} of ${got.n} parts had arrived); send it again from part 1`
    }.${kept ? " Your earlier contribution still stands." : ""}`,
  /** A part that does not fit the series in progress (see host/contribution-parts.ts). */
  partRefused: (
    id: string,
    part: { k: number; n: number },
    why: { reason: "no-first-part" } | { reason: "other-count"; pendingN: number } | { reason: "too-large"; maxBytes: string },
    kept: boolean,
  ) =>
    `Part ${part.k}/${part.n} of your contribution to ${id} was not used: ${
      why.reason === "no-first-part"
        ? `no part 1/${part.n} came before it (it never came, it was refused, or I restarted, which loses contributions still incomplete)`
        : why.reason === "other-count"
          ? `your contribution in progress has ${plural(why.pendingN, "part")}, not ${part.n}, so both were dropped`
          : `with it, the parts would hold more than ${why.maxBytes} of Turtle, the most one contribution may, so the contribution was dropped`
    }. Its other parts are ignored until a new part 1; send the contribution again from part 1.${kept ? " Your earlier contribution still stands." : ""}`,
  /** Part 1 of a contribution for a session whose model is closed (or that is complete). */
  partsTooLate: (s: Session) =>
    s.phase === "complete"
      ? `Session ${s.id} is already complete; your contribution in parts was not used.`
      : `The model of ${s.id} is already closed and with the solvers; your contribution in parts was not used.`,
  unknownSession: (id: string | undefined) =>
    id ? `There is no session "${clip(id, 40)}". Say "mfr-list" for the sessions.` : `That message has no sessionId, so I cannot tell which session it is for. Say "mfr-list" for the sessions.`,
  proposalTooEarly: (s: Session) => `Session ${s.id} is not asking for solutions yet (it is ${phaseWords(s)}); your proposal was not counted.`,
  proposalTooLate: (s: Session, now: number) => `Session ${s.id} is already complete; your proposal arrived too late to count.${missedWindow(s, "reasoning", now)}`,
  alreadyComplete: (s: Session) => `Session ${s.id} is already complete (${s.completion?.status ?? "done"}).`,
  /**
   * Said only when the model is not sound: a sound one is announced by the solution request.
   * After the counts and the fix round, the first violations in a few words each and whose
   * they are (findings-line.ts); since it names agents, it is marked as status.
   */
  violationsBody: (s: Session, violations: number, warnings: number, fixing: number | null, findings: readonly ValidationFinding[]) => {
    const named = namedFindings(
      s.id,
      findings.filter((f) => f.severity === "Violation"),
      (text) => readable(s, text),
    );
    const head = `Session ${s.id}: the model has ${plural(violations, "violation")}${warnings ? ` (and ${plural(warnings, "warning")})` : ""}`;
    const next = fixing === null ? ` No fix rounds are left (${s.settings.maxFixRounds} allowed), so the session ends.` : "";
    return `${named ? `${head}: ${named}.` : `${head}.`}${next}`;
  },
  /**
   * A fix round's request: the one line a client that shows only messages with a body (or a
   * library that hands a bot only those) needs to see the round. Names no agent.
   */
  fixRequestBody: (s: Session, fixing: number) =>
    `Session ${s.id}: fix round ${s.round - 1} of ${s.settings.maxFixRounds}: ${plural(fixing, "agent")} asked to fix the model, open for ${seconds(s.settings.contributionTimeoutMs)}.`,
  /** A request asked again after an absence of the coordinator (absence.ts). Names no agent. */
  repeatBody: (s: Session, kind: "contributions" | "reasoning", openMs: number) =>
    kind === "contributions"
      ? `Session ${s.id}: asking again for ${s.round > 1 ? `the fixes of round ${s.round - 1}` : "model contributions"}, since I was away and may have missed answers; open for ${seconds(Math.max(0, openMs))}.`
      : `Session ${s.id}: asking again for ${(s.solutionRound ?? 1) > 1 ? `the repairs of round ${(s.solutionRound ?? 1) - 1}` : "solutions"}, since I was away and may have missed answers; open for ${seconds(Math.max(0, openMs))}.`,
  solutionRequestBody: (s: Session, triples: number, warnings: number) =>
    clip(
      `Session ${s.id}: the model is sound (${plural(triples, "triple")} from ${plural(Object.keys(s.contributions).length, "contributor")}${warnings ? `, ${plural(warnings, "warning")}` : ""}). Asking for solutions, open for ${seconds(s.settings.reasoningTimeoutMs)}.`,
      ROOM_LINE_MAX,
    ),
  /**
   * A repair round's one line: how the check judged the failing plans (verdicts, not names: a
   * protocol body names no agent), and whether a valid plan is already in.
   */
  repairBody: (s: Session, repairing: readonly string[], solved: boolean) => {
    const failing = s.proposals.filter((p) => repairing.some((a) => sameAgent(a, p.agent)));
    const verdicts = failing.map((p) => verdictWords(p).replace(/ \(claimed success\)$/, ""));
    const judged = failing.length === 1 ? `1 plan failed the check (${verdicts[0]})` : `${failing.length} plans failed the check (${verdicts.join("; ")})`;
    const status = solved ? "a valid plan is already in" : "no plan is valid yet";
    return clip(
      `Session ${s.id}: ${judged}; ${status}. Repair round ${(s.solutionRound ?? 2) - 1} of ${s.settings.maxRepairRounds ?? 0}: ${plural(repairing.length, "proposer")} asked to repair, open for ${seconds(s.settings.reasoningTimeoutMs)}.`,
      ROOM_LINE_MAX,
    );
  },
  /** The findings of a repair round, for the log room. */
  repairDetail: (s: Session, issues: Record<string, string[]>) =>
    [`Session ${s.id}, repair round ${(s.solutionRound ?? 2) - 1}:`, ...Object.entries(issues).flatMap(([agent, lines]) => lines.map((l) => `  ${agent}: ${clip(l, 200)}`))].join("\n"),
  /** The issues of a fix round, for the log room: who must fix what. */
  fixDetail: (s: Session) =>
    [
      `Session ${s.id}, fix round ${s.round - 1} of ${s.settings.maxFixRounds}:`,
      ...Object.entries(s.fixRequests).flatMap(([agent, issues]) => issues.map((issue) => `  ${agent}: ${clip(readable(s, issue), 200)}`)),
    ].join("\n"),
};

/** " It came 4.2 s after the contribution window closed, after 30 s open." — the window of that kind a late answer missed; "" when none closed yet. */
function missedWindow(s: Session, kind: "contributions" | "reasoning", now: number): string {
  const w = s.closedWindows?.[kind];
  if (!w) return "";
  const which = kind === "contributions" ? (w.round > 1 ? `window of fix round ${w.round - 1}` : "contribution window") : w.round > 1 ? `window of repair round ${w.round - 1}` : "solution window";
  const open = w.openedAt !== undefined ? `, after ${seconds(w.at - w.openedAt)} open` : "";
  return ` It came ${seconds(Math.max(0, now - w.at))} after the ${which} closed${open}.`;
}

/** What a session is doing now, in a few words ("collecting model contributions"). */
export function phaseWords(s: Session): string {
  switch (s.phase) {
    case "selecting":
      return s.selection?.stage === "debating"
        ? `choosing agents (debate led by ${s.selection.chair ?? "the Chair"})`
        : s.selection?.stage === "clarifying"
          ? `waiting for ${s.startedBy.nick} to choose agents`
          : "waiting for approval of agents that act in the world";
    case "collecting":
      return s.round === 1 ? "collecting model contributions" : `collecting fixes (round ${s.round})`;
    case "validating":
      return "validating the merged model";
    case "reasoning":
      return "collecting solution proposals";
    case "complete":
      return `complete (${s.completion?.status ?? "?"})`;
  }
}

/** IRIs minted under the session's base are shown relative to it (`#delivered`). */
function readable(s: Session, text: string): string {
  return text.split(sessionBaseIri(s.id)).join("");
}

/**
 * Said when a contribution window closes while someone expected has not answered (or sent
 * something unusable); nothing is said when everyone did. One line, marked as status since
 * it names agents.
 */
export function contributionStallReport(s: Session): string | null {
  const got = contributors(s).filter((c) => c.round === s.round).map((c) => c.agent);
  const rejected = [...new Set(s.rejected.filter((r) => r.round === s.round).map((r) => r.agent))].filter((a) => !got.some((g) => g.toLowerCase() === a.toLowerCase()));
  const missing = missingAgents(s).filter((a) => !rejected.some((r) => r.toLowerCase() === a.toLowerCase()));
  if (missing.length === 0 && rejected.length === 0) return null;
  const window = s.round === 1 ? "contribution window" : `window of fix round ${s.round - 1}`;
  const next = Object.keys(s.contributions).length > 0 ? "validating what arrived" : "nothing to validate, so the session ends";
  return clip(
    `Session ${s.id}: the ${window} closed; received from ${names(got)}${missing.length ? `, nothing from ${names(missing)}` : ""}${rejected.length ? `, unusable from ${names(rejected)}` : ""}; ${next}.`,
    ROOM_LINE_MAX,
  );
}

/** Why the session failed because nothing was contributed. */
export function noContributionsReason(s: Session): string {
  const asked = s.requestedAgents ? names(s.requestedAgents) : s.expectedAgents.length ? names(s.expectedAgents) : "all agents in the room";
  const rejected = [...new Set(s.rejected.map((r) => r.agent))];
  return `No usable model contribution arrived within ${seconds(s.settings.contributionTimeoutMs)} (asked: ${asked}${rejected.length ? `; unparsable contributions from ${names(rejected)}` : ""}).`;
}

/** Why reasoning produced no successful solution: who was asked, who answered, why each failed. */
export function noSolutionReason(s: Session): string {
  const answered = new Set(s.proposals.map((p) => p.agent.toLowerCase()));
  const silent = s.solvers.filter((a) => !answered.has(a.toLowerCase()));
  // No duration: the window may have closed early (everyone answered, or a quiet period).
  const parts = [`No successful solution. Asked: ${names(s.solvers)}.`];
  if (s.proposals.length === 0) parts.push("Nobody proposed a solution.");
  for (const p of rankedProposals(s)) {
    // Where the plan could be checked, the check speaks; otherwise the agent's own account.
    if (p.verification && p.verification.verdict !== "unverifiable") parts.push(`${p.agent}: ${clip(verdictWords(p), 160).replace(/\.$/, "")}.`);
    else parts.push(`${p.agent} failed: ${clip(p.solution.executionError ?? p.solution.message ?? "no reason given", 160).replace(/\.$/, "")}.`);
  }
  if (silent.length && s.proposals.length) parts.push(`No answer from ${names(silent)}.`);
  return parts.join(" ");
}

/** Why a session failed when its model still violates the shapes after the last allowed fix round (mfr:maxFixRounds). */
export function violationsReason(s: Session, violations: number): string {
  return `The model still has ${plural(violations, "violation")} after ${plural(s.settings.maxFixRounds, "fix round")}.`;
}

/** What people can do after a session failed on violations; ends the completion's reason. */
export function nextStepsAfterViolations(): string {
  return "Next: fix the contributions named above and start again with mfr-start, or raise mfr:maxFixRounds.";
}

/** A finding with the shape's full message, for mfr-status and the log room: "Violation: <message> (<item>, <path>) from <agents>". */
export function findingLine(s: Session, f: ValidationFinding): string {
  return `${f.severity}: ${clip(f.message, 140)} (${clip(readable(s, f.focusNode), 60)}${f.path ? `, ${f.path}` : ""})${f.agents.length ? ` from ${names(f.agents)}` : ""}`;
}

/** "2 constraints, 1 precondition": what kinds of literal were free text, by their property. */
function informalKinds(parts: readonly InformalCount[]): string {
  const counts = new Map<string, number>();
  for (const p of parts) {
    const kind = INFORMAL_KIND[localName(p.predicate)] ?? "expression";
    counts.set(kind, (counts.get(kind) ?? 0) + p.count);
  }
  return [...counts].map(([kind, n]) => plural(n, kind)).join(", ");
}

const INFORMAL_KIND: Record<string, string> = {
  constraintExpression: "constraint",
  initialState: "initial-state fact",
  hasParameter: "parameter",
  expression: "expression",
};

/**
 * Why a session's plans were not checked, in a few words ("the model has no formal part"),
 * or undefined when they were: a session solved without a valid plan was solved on a claim.
 */
export function uncheckedBecause(s: Session): string | undefined {
  const formal = formalSummaryOf(s.model);
  if (formal?.hasFormalPart) return undefined;
  return formal ? "the model has no formal part" : "no formal model to check it against";
}

/** Plan steps the summary lists one per line; a longer plan is counted after them (the export has it whole). */
const PLAN_STEPS_SHOWN = 15;

/**
 * The full summary for people: the SessionComplete's `summary`, `mfr-status` of a finished
 * session and the log room. One fact per line, a plan one step per line (a chat client
 * wraps long lines, and step numbers must stay with their steps), the problem whole where it
 * is of a reasonable length.
 */
export function sessionSummary(s: Session, now: number): string {
  const c = s.completion;
  const lines: string[] = [];
  lines.push(`Session ${s.id} ${c?.status ?? s.phase} after ${seconds((c?.at ?? now) - s.startedAt)}, started by ${s.startedBy.nick}.`);
  lines.push(`Problem: ${clipNear(s.problem, 300)}`);
  if (s.selection && s.selection.chosen.length > 0) lines.push(`Agents: ${clip(names(s.selection.chosen), 120)} (${s.selection.method}).`);
  const contribs = contributors(s);
  if (contribs.length === 0) {
    lines.push("Contributors: none.");
  } else {
    lines.push("Contributors:");
    const shown = contribs.slice(0, 5);
    for (const k of shown) lines.push(`  ${k.agent}: ${describeCounts(k.counts)}${k.requested ? "" : " (not requested)"}`);
    if (contribs.length > shown.length) lines.push(`  … and ${contribs.length - shown.length} more`);
  }
  const last = s.validations[s.validations.length - 1];
  if (last) {
    lines.push(
      last.outcome.ok
        ? `Validation: ${last.outcome.analysis.conforms ? "sound" : "not sound"} after ${plural(last.round, "round")} (${plural(last.outcome.analysis.violations, "violation")}, ${plural(last.outcome.analysis.warnings, "warning")}).`
        : `Validation: could not finish (${inline(clip(last.outcome.error, 100))}).`,
    );
  }
  const informal = formalSummaryOf(s.model)?.notMachineCheckable ?? [];
  const informalCount = informal.reduce((n, p) => n + p.count, 0);
  if (informalCount) lines.push(`Not machine-checkable: ${plural(informalCount, "free-text part")} (${informalKinds(informal)}); plans are not checked there.`);
  const ranked = rankedProposals(s);
  const best = ranked[0];
  if (best && (c?.status === "solved" || (!best.verification && best.solution.success))) {
    const valid = best.verification?.verdict === "valid";
    lines.push(`Best solution, from ${best.agent}: ${clipNear(best.solution.message ?? "", 160)}`);
    const unchecked = valid ? undefined : uncheckedBecause(s);
    if (c?.status === "solved" && unchecked) lines.push(`  Not checked: ${unchecked}, so the session is solved on ${best.agent}'s own claim.`);
    lines.push(...planLines(best.solution.plan ?? []));
    if (best.solution.bindings?.length) lines.push(`  Bindings: ${clip(best.solution.bindings.join(", "), 200)}`);
    const goals = best.solution.satisfiesGoals ?? [];
    // Met where the plan was checked valid; otherwise what the agent claims.
    if (goals.length) lines.push(`  Goals ${valid ? "met" : "claimed"}: ${goalsSatisfied(best)} of ${goals.length} (${clip(goals.map((g) => `${g.goal} ${g.satisfied ? "✓" : "✗"}`).join(", "), 160)})`);
  } else if (c?.status !== "cancelled" && s.solutionRequestedAt !== null && ranked.length === 0) {
    lines.push("Solutions: none.");
  }
  // Every proposal, best first, as the coordinator's own check judged it.
  if (ranked.length > 0 && (s.solutionRequestedAt !== null || c)) {
    const shown = ranked.slice(0, 5);
    lines.push(`Solutions, best first (${ranked.length}):`, ...shown.map((p) => `  ${p.agent}: ${clip(verdictWords(p), 140)}`));
    if (ranked.length > shown.length) lines.push(`  … and ${ranked.length - shown.length} more`);
  }
  if (c?.reason) lines.push(`Why: ${clip(c.reason, 300)}`);
  return lines.join("\n");
}

/** A plan, one step per line with its number, the first PLAN_STEPS_SHOWN of them. */
function planLines(plan: readonly string[]): string[] {
  if (plan.length === 0) return [];
  const shown = plan.slice(0, PLAN_STEPS_SHOWN).map((step, i) => `    ${i + 1}. ${clip(String(step), 120)}`);
  const rest = plan.length - shown.length;
  return [`  Plan (${plural(plan.length, "step")}):`, ...shown, ...(rest > 0 ? [`    … and ${plural(rest, "more step")} (mfr-coordinator export has them all)`] : [])];
}

/**
 * The session's last line in the primary room: status, time, the best solution and who
 * proposed it, under ROOM_LINE_MAX characters. The full summary goes to the log room, in
 * the SessionComplete, and to `mfr-status <id>`.
 */
export function roomSummary(s: Session, now: number): string {
  const c = s.completion;
  const head = `Session ${s.id} ${c?.status ?? s.phase} after ${seconds((c?.at ?? now) - s.startedAt)}`;
  const tail = ` Details: mfr-status ${s.id}.`;
  const best = rankedProposals(s)[0];
  let outcome: string;
  if (c?.status === "solved" && best) {
    const valid = best.verification?.verdict === "valid";
    const unchecked = valid ? undefined : uncheckedBecause(s);
    const checked = valid ? " (checked valid)" : "";
    const plan = best.solution.plan?.length ? `, a plan of ${plural(best.solution.plan.length, "step")}${checked}` : "";
    const claim = unchecked ? `, not checked (${unchecked}): solved on the agent's own claim` : "";
    // Goals are met only where the plan was checked; otherwise they are what the agent claims.
    const goals = best.solution.satisfiesGoals?.length ? `, ${goalsSatisfied(best)} of ${best.solution.satisfiesGoals.length} goals ${valid ? "met" : "claimed"}` : "";
    const others = s.proposals.length > 1 ? ` (${plural(s.proposals.length, "proposal")} in all)` : "";
    // The quote loses its own final stop, so the line does not end in `.".`
    outcome = `: best solution from ${best.agent}${plan}${claim}${goals}${others}: ${quoted(best.solution.message, 100)}.`;
  } else {
    outcome = c?.reason ? `: ${c.reason}` : ".";
  }
  return `${clip(`${head}${outcome}`, ROOM_LINE_MAX - tail.length)}${tail}`;
}

/** Full detail for the log room. */
export function sessionDetail(s: Session, now: number): string {
  const lines = [sessionSummary(s, now), "", "Detail:"];
  for (const k of contributors(s)) lines.push(`- ${k.agent}${k.agentJid ? ` <${k.agentJid}>` : ""}, round ${k.round}: ${k.tripleCount} triples, ${describeCounts(k.counts)}`);
  for (const r of s.rejected) lines.push(`- rejected from ${r.agent}, round ${r.round}: ${r.reason}`);
  for (const v of s.validations) {
    if (!v.outcome.ok) {
      lines.push(`- validation round ${v.round}: ${v.outcome.error}`);
      continue;
    }
    lines.push(`- validation round ${v.round}: ${v.outcome.analysis.summary}`);
    for (const f of v.outcome.analysis.findings.slice(0, 50)) lines.push(`    ${findingLine(s, f)}`);
  }
  for (const p of rankedProposals(s)) {
    // The agent's own claim, named as one (the checked verdict is in the summary above), then its words quoted.
    const words = p.solution.message ? `: ${quoted(p.solution.message, 200)}` : "";
    lines.push(`- proposal from ${p.agent} (claims ${p.solution.success ? "success" : "failure"})${words}`);
  }
  return lines.join("\n");
}

