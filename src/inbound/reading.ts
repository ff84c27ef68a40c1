/**
 * What an inbound message asks, as read.ts reads it: the vocabulary the later stages
 * (identify, route) decide on, so that no stage parses the message a second time.
 */
import type { Command, CommandMisuse, UnknownCommand } from "../commands/parse.js";
import type { NegotiationDecode } from "../protocol/negotiation.js";
import type { Input } from "../session/step-io.js";

/** What a protocol message is evidence of about its sender, for the catalog of agents. */
export type AgentEvidence = "contribution" | "proposal" | "other";

/** A protocol message, by mode: a Turtle contribution (or one part of it), a negotiation message, or other. */
export type ProtocolReading =
  | { mode: "contribution"; sessionId: string | undefined; modelPart: string | undefined; content: string }
  | { mode: "negotiation"; negotiation: NegotiationDecode }
  /** HumanChat status lines, ShaclValidation reports and unknown modes: not input. */
  | { mode: "other" };

/** A line of a Chair's debate, as the session core takes it. */
export type DebateInput = Extract<Input, { kind: "debate" }>;

/** What a message asks: one of these, decided once by read.ts. */
export type Reading =
  | { kind: "protocol"; payloadMode: string; protocol: ProtocolReading; evidence: AgentEvidence }
  | { kind: "debate-line"; input: DebateInput }
  | { kind: "command"; command: Command }
  | { kind: "misuse"; misuse: CommandMisuse }
  /** Said as a command that is none: in 1:1 chat, addressed to us, or a misspelt command word. */
  | { kind: "unknown"; unknown: UnknownCommand }
  | { kind: "chatter" };
