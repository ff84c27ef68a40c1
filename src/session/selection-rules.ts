/**
 * Choosing the agents before a session collects contributions: a Chair's debate, selection
 * from the room (with a person's clarification when it cannot tell), a person's approval for
 * agents that act in the world, and agents that leave meanwhile. The room comes with the
 * inputs as data (see room-view.ts); every decision is made here, so a replay decides as live.
 *
 * While a debate runs, the session says nothing: Chairs read every plain line as debate input.
 */
import { debateInvitation, selectionWording as say } from "./selection-report.js";
import { seconds } from "../base/text.js";
import { sessionWording } from "./report.js";
import { maySteer, sameAgent, sameParticipant } from "./identity.js";
import { beginCollecting, complete, dedupe } from "./lifecycle.js";
import { setDeadline } from "./windows.js";
import { EMPTY_ROOM, type RoomView } from "./room-view.js";
import { selectFromRoom } from "./selection-match.js";
import { mapNames, mappedAgents } from "./selection-names.js";
import type { Step } from "./step-context.js";
import type { Participant, Selection, SelectionOutcome, Session } from "./types.js";
import type { Input } from "./step-io.js";
import { nameTable } from "./name-table.js";

/** Debate lines kept per session for the report. */
const MAX_NOTES = 50;

type StartInput = Extract<Input, { kind: "start" }>;
type DebateInput = Extract<Input, { kind: "debate" }>;

/**
 * Opens the `selecting` phase of a new session (called by the start rule when the input asks
 * to choose agents, or some present agents need approval): a Chair's debate with a deadline,
 * a selection from the room (the one an older log carries, else made here from the input's
 * room), or everyone, with a person's approval asked first for those who need it.
 */
export function startSelection(session: Session, input: StartInput, s: Step): void {
  session.phase = "selecting";
  const choose = input.choose;
  const selection: Selection = {
    stage: "approving",
    chair: null,
    chairPin: null,
    room: input.room ?? null,
    ...(choose?.method === "debate" && choose.fallback ? { fallback: choose.fallback } : {}),
    notes: [],
    options: [],
    chosen: [],
    reasons: nameTable(),
    awaitingApproval: [],
    approvalRequired: input.approvalRequired ?? [],
    method: "all agents present",
  };
  session.selection = selection;
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
    if (choose.chairIdentity) selection.chairPin = { nick: choose.chair, jid: undefined, identity: choose.chairIdentity };
    selection.method = `debate led by ${choose.chair}`;
    const available = (input.room?.candidates ?? []).map((c) => c.nick);
    s.invite(choose.invitation ?? debateInvitation(session.id, session.problem, available));
    setDeadline(session, "selection", s.now + session.settings.debateTimeoutMs, s);
    return;
  }
  selection.method = "selection from the room";
  applyOutcome(session, selection, choose.outcome ?? selectFromRoom(session.problem, input.room ?? EMPTY_ROOM), s);
}

/** The room's choice when a debate ends without a usable consensus: from the room as it is now. */
function fallBack(session: Session, selection: Selection, why: string, method: string, room: RoomView | undefined, s: Step): void {
  if (room) selection.room = room;
  s.say(say.debateFallback(session, why));
  selection.method = method;
  const outcome = room || !selection.fallback ? selectFromRoom(session.problem, selection.room ?? EMPTY_ROOM) : selection.fallback;
  applyOutcome(session, selection, outcome, s);
}

function applyOutcome(session: Session, selection: Selection, outcome: SelectionOutcome, s: Step): void {
  if (outcome.kind === "everyone") {
    // Nothing to go by never fails a session: whoever might be an agent is asked.
    selection.stage = "approving";
    selection.chosen = dedupe(outcome.agents);
    selection.reasons = nameTable(selection.chosen.map((a) => [a, "might be an agent"]));
    s.say(say.everyone(session, selection.chosen, outcome.why));
    if (selection.chosen.length === 0) {
      beginCollecting(session, null, [], s);
      return;
    }
    askApprovalOrBegin(session, selection, s);
    return;
  }
  if (outcome.kind === "chosen" && outcome.agents.length > 0) {
    selection.chosen = dedupe(outcome.agents);
    selection.reasons = { ...outcome.reasons };
    s.say(say.chosen(session, selection));
    askApprovalOrBegin(session, selection, s);
    return;
  }
  const options = outcome.kind === "unclear" ? outcome.options : [];
  if (options.length === 0) {
    complete(session, "failed", say.noAgents(outcome.kind === "unclear" ? outcome.why : "No agent in the room fits."), s);
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

/**
 * Only the Chair ends a debate: the identity pinned when it opened, or else the first that
 * spoke under the Chair's nick. Someone who takes the nick later is not the Chair.
 */
function fromTheChair(selection: Selection, from: Participant): boolean {
  const pin = selection.chairPin;
  if (pin) return sameParticipant(pin, from);
  return selection.chair !== null && sameAgent(selection.chair, from.nick);
}

/**
 * A line of the Chair's debate. Positions, supports and objections are noted (at most 50);
 * only the Chair's own `consensus` or `no-consensus` ends the debate. Outside a debate, or from
 * someone else under the Chair's nick, the line is logged and ignored.
 */
export function onDebateLine(session: Session, input: DebateInput, s: Step): void {
  const selection = session.selection;
  if (session.phase !== "selecting" || selection?.stage !== "debating") {
    s.log("debug", "debate line outside a debate ignored", { sessionId: session.id, from: input.from.nick });
    return;
  }
  const line = input.line;
  if (line.kind === "position" || line.kind === "support" || line.kind === "objection") {
    if (selection.notes.length < MAX_NOTES) selection.notes.push({ from: input.from.nick, kind: line.kind, text: line.text });
    return;
  }
  if (!fromTheChair(selection, input.from)) {
    s.log("warn", "a Chair's line from someone else under the Chair's nick ignored", {
      sessionId: session.id,
      nick: input.from.nick,
      line: line.kind,
      chair: selection.chairPin?.identity ?? selection.chairPin?.jid ?? selection.chair,
      from: input.from.identity ?? input.from.jid,
    });
    return;
  }
  selection.chairPin ??= input.from;
  switch (line.kind) {
    case "started":
      return;
    case "no-consensus":
      fallBack(session, selection, "the Chair reports no consensus", "selection from the room, after the debate found no consensus", input.room, s);
      return;
    case "consensus":
      onConsensus(session, selection, line, input.room, s);
      return;
  }
}

function onConsensus(session: Session, selection: Selection, line: Extract<DebateInput["line"], { kind: "consensus" }>, room: RoomView | undefined, s: Step): void {
  let agents: string[];
  if (line.names) {
    const mapping = mapNames(line.names, room ?? selection.room ?? EMPTY_ROOM);
    if (mapping.length > 0) s.say(say.consensusNames(session, mapping));
    agents = mappedAgents(mapping);
  } else {
    // A log written before names were mapped here: the shell resolved them.
    if ((line.ignored ?? []).length > 0) s.say(say.ignoredNames(session, line.ignored ?? []));
    agents = line.agents ?? [];
  }
  if (agents.length === 0) {
    fallBack(session, selection, "the consensus named no agent in the room", "selection from the room, after the consensus named no agent in the room", room, s);
    return;
  }
  if (room) selection.room = room;
  selection.chosen = dedupe(agents);
  selection.reasons = nameTable(selection.chosen.map((a) => [a, `named in the consensus: "${line.text}"`]));
  s.say(say.chosen(session, selection));
  askApprovalOrBegin(session, selection, s);
}

/**
 * A person picks numbered options of the open clarification question (or `all`). Only one who
 * may steer the session is heard; a number not offered is answered with the valid range and
 * nothing is chosen.
 */
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
  selection.reasons = nameTable(selection.chosen.map((a) => [a, `chosen by ${input.by.nick}`]));
  selection.method = `chosen by ${input.by.nick} from the room's options`;
  s.say(say.chosen(session, selection));
  askApprovalOrBegin(session, selection, s);
}

/**
 * A person's approve or reject for all the agents that await approval at once: rejected ones
 * are dropped and the session begins with who is left (none left: it fails). Only one who may
 * steer the session is heard.
 */
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

/**
 * A chosen agent (or an option) left before being asked: it is dropped, with a line; when
 * nobody chosen is left, the room as it is now is asked instead. Each departure is one input,
 * so choosing can never go round in circles.
 */
export function onDeparture(session: Session, input: Extract<Input, { kind: "departure" }>, s: Step): void {
  const selection = session.selection;
  if (session.phase !== "selecting" || !selection) return;
  const nick = input.who.nick;
  selection.room = input.room;
  if (selection.stage === "clarifying") {
    const option = selection.options.find((o) => sameAgent(o.agent, nick));
    if (!option) return;
    selection.options = selection.options.filter((o) => o !== option);
    s.say(say.departed(session, option.agent, option.number));
    if (selection.options.length === 0) {
      selection.method = "selection from the room, after the options left";
      applyOutcome(session, selection, selectFromRoom(session.problem, input.room, { exclude: [nick] }), s);
    }
    return;
  }
  if (selection.stage !== "approving") return;
  const gone = selection.chosen.find((a) => sameAgent(a, nick));
  if (!gone) return;
  selection.chosen = selection.chosen.filter((a) => a !== gone);
  selection.awaitingApproval = selection.awaitingApproval.filter((a) => !sameAgent(a, nick));
  s.say(say.departed(session, gone, undefined));
  if (selection.chosen.length === 0) {
    selection.method = "selection from the room, after the chosen agents left";
    applyOutcome(session, selection, selectFromRoom(session.problem, input.room, { exclude: [nick] }), s);
    return;
  }
  if (selection.awaitingApproval.length === 0) begin(session, selection, s);
}

/**
 * The selection deadline (debateTimeoutMs) passed: a debate falls back to selection from the
 * room, an unanswered question ends the session as timed out, and agents still awaiting
 * approval are left out (no yes means no).
 */
export function onSelectionDeadline(session: Session, input: Extract<Input, { kind: "deadline" }>, s: Step): void {
  const selection = session.selection;
  if (!selection) return;
  switch (selection.stage) {
    case "debating":
      fallBack(session, selection, `no consensus within ${seconds(session.settings.debateTimeoutMs)}`, "selection from the room, after the debate timed out", input.room, s);
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
