/**
 * ModelNegotiation payloads (JSON): inbound ones parsed once into typed values with zod,
 * liberal in what they accept; outbound ones built strictly, with full messageType IRIs.
 */
import { z } from "zod";
import type { Proposal, SolutionBody } from "../session/types.js";
import type { Broadcast } from "../session/step-io.js";
import { readBoundedJson } from "./bounded-json.js";
import { GOAL_EXTRA_LIMITS, SOLUTION_EXTRA_LIMITS, boundExtraFields } from "./extra-fields.js";
import { ContributionKind, MFR, MessageType } from "../base/vocab.js";

/** Accepts `http://purl.org/stuff/mfr/SolutionProposal`, `mfr:SolutionProposal` or `SolutionProposal`. */
export function shortMessageType(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (trimmed.startsWith(MFR)) return trimmed.slice(MFR.length);
  if (trimmed.startsWith("mfr:")) return trimmed.slice(4);
  return trimmed;
}

const stringList = z.preprocess((v) => {
  if (v === undefined || v === null) return undefined;
  if (typeof v === "string") return [v];
  if (Array.isArray(v)) return v.map((x) => (typeof x === "string" ? x : JSON.stringify(x)));
  if (typeof v === "object") return Object.entries(v as Record<string, unknown>).map(([k, x]) => `${k}=${typeof x === "string" ? x : JSON.stringify(x)}`);
  return [String(v)];
}, z.array(z.string()).optional());

const looseBoolean = z.preprocess((v) => (v === "true" ? true : v === "false" ? false : v), z.boolean());

/** The fields the protocol names; any others are the peer's extras. */
const GOAL_FIELDS: ReadonlySet<string> = new Set(["goal", "satisfied"]);
const SOLUTION_FIELDS: ReadonlySet<string> = new Set(["success", "message", "plan", "bindings", "satisfiesGoals", "executionError"]);

const GoalSchema = z
  .object({ goal: z.preprocess((v) => (typeof v === "string" ? v : JSON.stringify(v)), z.string()), satisfied: looseBoolean })
  .loose()
  .transform((goal) => boundExtraFields(goal, GOAL_FIELDS, GOAL_EXTRA_LIMITS));

const SolutionSchema = z
  .object({
    success: looseBoolean,
    message: z.preprocess((v) => (v === undefined || v === null ? "" : typeof v === "string" ? v : JSON.stringify(v)), z.string()),
    plan: stringList,
    bindings: stringList,
    satisfiesGoals: z.array(GoalSchema).optional(),
    executionError: z.preprocess((v) => (v === undefined || v === null ? undefined : typeof v === "string" ? v : JSON.stringify(v)), z.string().optional()),
  })
  .loose()
  // Extra fields are kept and shown, but they are logged and sent back once per proposal.
  .transform((solution) => boundExtraFields(solution, SOLUTION_FIELDS, SOLUTION_EXTRA_LIMITS));

/** Longest session id or message type read from a payload; real ones are far shorter. */
const MAX_NAME_LENGTH = 100;

const SessionIdSchema = z.string().min(1).max(MAX_NAME_LENGTH);

const ProposalSchema = z.object({ sessionId: SessionIdSchema, solution: SolutionSchema }).loose();
const PlanExecutionSchema = z.object({ sessionId: SessionIdSchema }).loose();
const ActionSchemaSchema = z.object({ sessionId: SessionIdSchema, actions: z.array(z.unknown()).max(1000) }).loose();

export type InboundNegotiation =
  | { type: "SolutionProposal"; sessionId: string; solution: SolutionBody }
  | { type: "PlanExecutionResult"; sessionId: string; body: Record<string, unknown> }
  | { type: "ActionSchema"; sessionId: string; actionCount: number }
  /** A type we send (echoed by another coordinator) or do not know: noted, not acted on. */
  | { type: "other"; messageType: string | undefined; sessionId: string | undefined };

export type NegotiationDecode = { ok: true; message: InboundNegotiation } | { ok: false; error: string; sessionId: string | undefined };

/**
 * Reads one ModelNegotiation payload. Never throws: bad input, including JSON past the
 * limits of `readBoundedJson`, comes back as an error sentence for the sender
 * ("solution.extra is nested deeper than 32 levels"), and what is accepted can be logged,
 * cloned and sent back safely.
 */
export function decodeNegotiation(content: string, attributeType: string | undefined): NegotiationDecode {
  const read = readBoundedJson(content, { subject: "the payload" });
  if (!read.ok) return { ok: false, error: read.error.message, sessionId: undefined };
  const json = read.value;
  if (json === null || typeof json !== "object" || Array.isArray(json)) {
    return { ok: false, error: "the payload must be a JSON object", sessionId: undefined };
  }
  const record = json as Record<string, unknown>;
  // Both end up in log lines even when the message is refused: keep only plausible ones.
  const sessionId = plausible(record.sessionId);
  const type = shortMessageType(plausible(attributeType)) ?? shortMessageType(plausible(record.messageType));

  switch (type) {
    case "SolutionProposal": {
      const parsed = ProposalSchema.safeParse(record);
      if (!parsed.success) return { ok: false, error: `SolutionProposal: ${describeIssue(parsed.error)}`, sessionId };
      return { ok: true, message: { type: "SolutionProposal", sessionId: parsed.data.sessionId, solution: parsed.data.solution as SolutionBody } };
    }
    case "PlanExecutionResult": {
      const parsed = PlanExecutionSchema.safeParse(record);
      if (!parsed.success) return { ok: false, error: `PlanExecutionResult: ${describeIssue(parsed.error)}`, sessionId };
      return { ok: true, message: { type: "PlanExecutionResult", sessionId: parsed.data.sessionId, body: record } };
    }
    case "ActionSchema": {
      const parsed = ActionSchemaSchema.safeParse(record);
      if (!parsed.success) return { ok: false, error: `ActionSchema: ${describeIssue(parsed.error)}`, sessionId };
      return { ok: true, message: { type: "ActionSchema", sessionId: parsed.data.sessionId, actionCount: parsed.data.actions.length } };
    }
    default:
      return { ok: true, message: { type: "other", messageType: type, sessionId } };
  }
}

function plausible(value: unknown): string | undefined {
  return typeof value === "string" && value.length <= MAX_NAME_LENGTH ? value : undefined;
}

function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "invalid";
  const where = issue.path.length ? issue.path.join(".") : "the message";
  return `${where}: ${issue.message}`;
}

/**
 * A solution as sent in SessionComplete: who proposed it, and what they said. `agent` and
 * `receivedAt` are ours: a peer's own fields of those names must not say otherwise.
 */
/** Trace lines carried per solution in SessionComplete; the full trace is in the log and export. */
const TRACE_SENT = 20;

function solutionOut(p: Proposal): Record<string, unknown> {
  // `agent`, `receivedAt` and `verification` are the coordinator's own, whatever the agent sent.
  const { agent: _agent, receivedAt: _receivedAt, verification: _claimed, ...said } = p.solution;
  const verification = p.verification && { ...p.verification, ...(p.verification.trace ? { trace: p.verification.trace.slice(0, TRACE_SENT) } : {}) };
  return { agent: p.agent, receivedAt: new Date(p.receivedAt).toISOString(), ...said, ...(verification ? { verification } : {}) };
}

/** The JSON object of an outbound protocol message (messageType as a full IRI). */
export function negotiationJson(message: Broadcast, now: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const timestamp = new Date(now).toISOString();
  switch (message.type) {
    case "ModelContributionRequest":
      return {
        messageType: MessageType.ModelContributionRequest,
        sessionId: message.sessionId,
        problemDescription: message.problemDescription,
        requestedContributions: Object.values(ContributionKind),
        ...(message.requestedAgents ? { requestedAgents: message.requestedAgents } : {}),
        round: message.round,
        ...(message.issues ? { issues: message.issues } : {}),
        ...(message.repeat ? { repeat: true } : {}),
        timestamp,
        ...extra,
      };
    case "ModelValidationResult":
      return {
        messageType: MessageType.ModelValidationResult,
        sessionId: message.sessionId,
        round: message.round,
        conforms: message.conforms,
        summary: message.summary,
        results: message.results,
        ...(message.omitted ? { omittedResults: message.omitted } : {}),
        timestamp,
        ...extra,
      };
    case "SolutionRequest":
      return {
        messageType: MessageType.SolutionRequest,
        sessionId: message.sessionId,
        model: message.model,
        ...(message.round !== undefined && message.round > 1 ? { round: message.round, requestedAgents: message.requestedAgents ?? [], issues: message.issues ?? {} } : {}),
        // A round-1 request asked again names the proposers still awaited, when any are known.
        ...((message.round ?? 1) <= 1 && message.requestedAgents ? { requestedAgents: message.requestedAgents } : {}),
        ...(message.repeat ? { repeat: true } : {}),
        timestamp,
        ...extra,
      };
    case "SessionComplete":
      return {
        messageType: MessageType.SessionComplete,
        sessionId: message.sessionId,
        status: message.status,
        solutions: message.solutions.map(solutionOut),
        summary: message.summary,
        ...(message.reason ? { reason: message.reason } : {}),
        timestamp,
        ...extra,
      };
  }
}

export function messageTypeIri(message: Broadcast): string {
  return MessageType[message.type];
}
