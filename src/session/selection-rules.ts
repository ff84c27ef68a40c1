/**
 * Choosing the agents before a session collects contributions: a Chair's debate, the
 * catalog's selection (with a person's clarification when it cannot tell), and a person's
 * approval for agents that act in the world. Names and catalog matches are resolved by the
 * shell; here are only the rules.
 */
import { selectionWording as say } from "../chat/selection-report.js";
import { seconds } from "./text.js";
import { sessionWording } from "./report.js";
import { maySteer } from "./identity.js";
import { beginCollecting, complete, dedupe, sameAgent, setDeadline } from "./lifecycle.js";
import type { Step } from "./step-context.js";
import type { Input, Selection, SelectionOutcome, Session } from "./types.js";

/** Debate lines kept per session for the report. */
const MAX_NOTES = 50;

type StartInput = Extract<Input, { kind: "start" }>;

export function startSelection(session: Session, input: StartInput, s: Step): void {
  session.phase = "selecting";
  const selection: Selection = {
    stage: "approving",
    chair: null,
    fallback: input.choose?.method === "debate" ? input.choose.fallback : { kind: "chosen", agents: [], reasons: {} },
    notes: [],
    options: [],
    chosen: [],
    reasons: {},
    awaitingApproval: [],
    approvalRequired: input.approvalRequired ?? [],
    method: "all agents present",
  };
  session.selection = selection;
  const choose = input.choose;
  if (!choose) {
    // Everyone is invited, but some present agents need a person's approval first.
    selection.chosen = dedupe(input.requestedAgents ?? input.expectedAgents);
    s.say(say.startedAllAgents(session));
    askApprovalOrBegin(session, selection, s);
    return;
  }
  if (choose.method === "debate") {
    selection.stage = "debating";
    selection.chair = choose.chair;
    selection.method = `debate led by ${choose.chair}`;
    s.say(choose.invitation);
    setDeadline(session, "selection", s.now + session.settings.debateTimeoutMs, s);
    return;
  }
  selection.method = "selection from the catalog";
  applyOutcome(session, selection, choose.outcome, s);
}

function applyOutcome(session: Session, selection: Selection, outcome: SelectionOutcome, s: Step): void {
  if (outcome.kind === "chosen" && outcome.agents.length > 0) {
    selection.chosen = dedupe(outcome.agents);
    selection.reasons = { ...outcome.reasons };
    s.say(say.chosen(session, selection));
    askApprovalOrBegin(session, selection, s);
    return;
  }
  const options = outcome.kind === "unclear" ? outcome.options : [];
  if (options.length === 0) {
    complete(session, "failed", say.noAgents(outcome.kind === "unclear" ? outcome.why : "No agent in the catalog fits."), s);
    return;
  }
  selection.stage = "clarifying";
  selection.options = options;
  s.say(say.clarification(session, outcome.kind === "unclear" ? outcome.why : "", options));
  setDeadline(session, "selection", s.now + session.settings.debateTimeoutMs, s);
}

function askApprovalOrBegin(session: Session, selection: Selection, s: Step): void {
  selection.awaitingApproval = selection.chosen.filter((a) => selection.approvalRequired.some((r) => sameAgent(r, a)));
  if (selection.awaitingApproval.length > 0) {
    selection.stage = "approving";
    s.say(say.approvalNeeded(session, selection.awaitingApproval));
    setDeadline(session, "selection", s.now + session.settings.debateTimeoutMs, s);
    return;
  }
  begin(session, selection, s);
}

function begin(session: Session, selection: Selection, s: Step): void {
  if (selection.chosen.length === 0) {
    complete(session, "failed", say.noAgents("No agent is left to ask."), s);
    return;
  }
  beginCollecting(session, selection.chosen, selection.chosen, s);
}

export function onDebateLine(session: Session, input: Extract<Input, { kind: "debate" }>, s: Step): void {
  const selection = session.selection;
  if (session.phase !== "selecting" || selection?.stage !== "debating") {
    s.log("debug", "debate line outside a debate ignored", { sessionId: session.id, from: input.from.nick });
    return;
  }
  const line = input.line;
  switch (line.kind) {
    case "started":
      return;
    case "position":
    case "support":
    case "objection":
      if (selection.notes.length < MAX_NOTES) selection.notes.push({ from: input.from.nick, kind: line.kind, text: line.text });
      return;
    case "no-consensus":
      s.say(say.debateFallback(session, "the Chair reports no consensus"));
      selection.method = "selection from the catalog, after the debate found no consensus";
      applyOutcome(session, selection, selection.fallback, s);
      return;
    case "consensus":
      if (line.ignored.length > 0) s.say(say.ignoredNames(session, line.ignored));
      if (line.agents.length === 0) {
        s.say(say.debateFallback(session, "the consensus named no agent I know"));
        selection.method = "selection from the catalog, after the consensus named no known agent";
        applyOutcome(session, selection, selection.fallback, s);
        return;
      }
      selection.chosen = dedupe(line.agents);
      selection.reasons = Object.fromEntries(selection.chosen.map((a) => [a, `named in the consensus: "${line.text}"`]));
      s.say(say.chosen(session, selection));
      askApprovalOrBegin(session, selection, s);
      return;
  }
}

export function onChoice(session: Session, input: Extract<Input, { kind: "choice" }>, s: Step): void {
  const selection = session.selection;
  if (session.phase !== "selecting" || selection?.stage !== "clarifying") {
    s.tell(input.by.nick, say.noQuestionOpen(session));
    return;
  }
  if (!maySteer(session, input.by)) {
    s.tell(input.by.nick, sessionWording.notAllowed(session, "choose the agents of"));
    return;
  }
  const options = selection.options;
  let agents: string[];
  if (input.choice === "all") {
    agents = options.map((o) => o.agent);
  } else {
    const missing = input.choice.filter((n) => !options.some((o) => o.number === n));
    if (missing.length > 0) {
      s.tell(input.by.nick, say.badChoice(session, missing, options.length));
      return;
    }
    agents = input.choice.map((n) => options.find((o) => o.number === n)?.agent ?? "").filter(Boolean);
  }
  selection.chosen = dedupe(agents);
  selection.reasons = Object.fromEntries(selection.chosen.map((a) => [a, `chosen by ${input.by.nick}`]));
  selection.method = `chosen by ${input.by.nick} from the catalog's options`;
  s.say(say.chosen(session, selection));
  askApprovalOrBegin(session, selection, s);
}

export function onApproval(session: Session, input: Extract<Input, { kind: "approval" }>, s: Step): void {
  const selection = session.selection;
  if (session.phase !== "selecting" || selection?.stage !== "approving") {
    s.tell(input.by.nick, say.nothingToApprove(session));
    return;
  }
  if (!maySteer(session, input.by)) {
    s.tell(input.by.nick, sessionWording.notAllowed(session, input.approved ? "approve agents for" : "reject agents for"));
    return;
  }
  const decided = selection.awaitingApproval;
  if (!input.approved) selection.chosen = selection.chosen.filter((a) => !decided.some((d) => sameAgent(d, a)));
  selection.awaitingApproval = [];
  s.say(say.approvalDecided(session, decided, input.approved, input.by.nick));
  begin(session, selection, s);
}

export function onSelectionDeadline(session: Session, s: Step): void {
  const selection = session.selection;
  if (!selection) return;
  switch (selection.stage) {
    case "debating":
      s.say(say.debateFallback(session, `no consensus within ${seconds(session.settings.debateTimeoutMs)}`));
      selection.method = "selection from the catalog, after the debate timed out";
      applyOutcome(session, selection, selection.fallback, s);
      return;
    case "clarifying":
      complete(session, "timed-out", say.clarificationTimedOut(session), s);
      return;
    case "approving": {
      // Without a person's yes, agents that act in the world are left out.
      const left = selection.awaitingApproval;
      selection.chosen = selection.chosen.filter((a) => !left.some((d) => sameAgent(d, a)));
      selection.awaitingApproval = [];
      s.say(say.approvalTimedOut(session, left));
      begin(session, selection, s);
      return;
    }
  }
}
