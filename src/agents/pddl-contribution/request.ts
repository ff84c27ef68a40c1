/**
 * The message a contributing agent acts on: a ModelContributionRequest, read from a
 * ModelNegotiation payload with the bounds the coordinator applies to what it reads. Anything
 * else (other message types, malformed JSON) is not for us and comes back as null.
 */
import { z } from "zod";
import { readBoundedJson } from "../../protocol/bounded-json.js";
import { shortMessageType } from "../../protocol/negotiation.js";

/** What the contributor needs of a request: the session, and whether it is a fix round. */
export interface ContributionRequest {
  sessionId: string;
  /** 1 for the first request, more for a fix round. */
  round: number;
}

const RequestSchema = z.object({
  sessionId: z.string().min(1).max(200),
  round: z.number().int().min(1).max(1_000).optional(),
});

/** The request in a ModelNegotiation payload, or null when the payload is not one. */
export function readContributionRequest(content: string, attributeType: string | undefined): ContributionRequest | null {
  const read = readBoundedJson(content, { subject: "the payload" });
  if (!read.ok || read.value === null || typeof read.value !== "object" || Array.isArray(read.value)) return null;
  const record = read.value as Record<string, unknown>;
  const type = shortMessageType(attributeType) ?? shortMessageType(typeof record.messageType === "string" ? record.messageType : undefined);
  if (type !== "ModelContributionRequest") return null;
  const parsed = RequestSchema.safeParse(record);
  if (!parsed.success) return null;
  return { sessionId: parsed.data.sessionId, round: parsed.data.round ?? 1 };
}
