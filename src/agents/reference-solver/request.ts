/**
 * The one message the reference solver acts on: a SolutionRequest, read from a
 * ModelNegotiation payload with the same bounds the coordinator applies to what it reads.
 * Anything else (other message types, malformed JSON) is not for us and comes back as null.
 */
import { z } from "zod";
import { readBoundedJson } from "../../protocol/bounded-json.js";
import { shortMessageType } from "../../protocol/negotiation.js";

export interface SolutionRequest {
  sessionId: string;
  /** The model as Turtle; empty when it came in `modelParts` parts before the request. */
  model: string;
  /** How many ModelFirstRDF parts hold the model (0: it is all in `model`). */
  modelParts: number;
  round: number;
  /** Repair round: the proposers asked to repair; absent: everyone. */
  requestedAgents: string[] | undefined;
}

const RequestSchema = z.object({
  sessionId: z.string().min(1).max(200),
  model: z.string().default(""),
  modelParts: z.number().int().min(0).max(10_000).optional(),
  round: z.number().int().min(1).max(1_000).optional(),
  requestedAgents: z.array(z.string().max(200)).max(1_000).optional(),
});

export function readSolutionRequest(content: string, attributeType: string | undefined): SolutionRequest | null {
  const read = readBoundedJson(content, { subject: "the payload" });
  if (!read.ok || read.value === null || typeof read.value !== "object" || Array.isArray(read.value)) return null;
  const record = read.value as Record<string, unknown>;
  const type = shortMessageType(attributeType) ?? shortMessageType(typeof record.messageType === "string" ? record.messageType : undefined);
  if (type !== "SolutionRequest") return null;
  const parsed = RequestSchema.safeParse(record);
  if (!parsed.success) return null;
  const { sessionId, model, modelParts, round, requestedAgents } = parsed.data;
  return { sessionId, model, modelParts: modelParts ?? 0, round: round ?? 1, requestedAgents };
}

/** Whether a request asks us: the first round asks everyone; a repair round only those it names. */
export function asksUs(request: SolutionRequest, nick: string): boolean {
  if (request.round <= 1 || !request.requestedAgents) return true;
  return request.requestedAgents.some((a) => a.toLowerCase() === nick.toLowerCase());
}
