/**
 * Why input from the network was refused: a small fixed set, so the label of
 * `mfr_inputs_refused_total` never grows with what senders send. Each reason is counted
 * where the refusal is decided (the coordinator's admission and routing, the model
 * workers' queue, the edge that assembles contributions in parts, or the session core as
 * its steps show it).
 */
import type { PartRefusal } from "../host/contribution-parts.js";

export const REFUSAL_REASONS = {
  throttled: "the sender went over mfr:messagesPerMinute (flood guard)",
  "too-large": "the stanza was over mfr:maxInboundBytes",
  "outside-protocol-room": "a protocol message outside the primary and phase rooms",
  "not-allowed": "a protocol message from a sender not on mfr:allowProtocolFrom",
  "agent-command": "a command from an agent not on mfr:allowCommandsFrom",
  "not-occupant": "a command that changes something, from someone in none of the rooms",
  "not-in-room": "a command that changes something, while the coordinator is not in its primary room (reconnecting)",
  "problem-too-large": "mfr-start with a problem too large to send on",
  "session-limit": "mfr-start over the live-session limits (in all, or per person)",
  "no-session-id": "a contribution without a sessionId element",
  "bad-model-part": "a contribution part whose modelPart is unreadable",
  "malformed-payload": "a ModelNegotiation payload that is not readable JSON of a known message",
  "proposal-too-large": "a proposal too large to show in the SessionComplete",
  "workers-busy": "a contribution check refused because the model workers' queue was full (mfr:maxQueuedModelJobs)",
  "malformed-turtle": "a contribution with a Turtle syntax error",
  "contribution-over-limit": "a readable contribution against a rule (too many triples, a statement too large, no statements)",
  "unknown-session": "a contribution or proposal for a session that does not exist",
  "contribution-too-large": "a contribution in parts whose parts together are over the bytes one contribution may have",
  "part-out-of-sequence": "a contribution part with no series open (part 1 missing) or another part count than its series",
} as const;

export type RefusalReason = keyof typeof REFUSAL_REASONS;

export const REFUSAL_REASON_NAMES = Object.keys(REFUSAL_REASONS) as RefusalReason[];

/** The reason a part refused at the edge (host/contribution-parts.ts) is counted under. */
export function partRefusalReason(refusal: PartRefusal): RefusalReason {
  return refusal === "too-large" ? "contribution-too-large" : "part-out-of-sequence";
}
