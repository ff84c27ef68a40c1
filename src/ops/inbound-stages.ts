/**
 * The stages every inbound stanza goes through, in order: a fixed set, so that the label of
 * `mfr_inbound_errors_total` never grows with what senders send.
 */
export const INBOUND_STAGES = ["dispatch", "admit", "read", "identify", "route"] as const;

/** One stage: dispatch (sorts a stanza on the room connection), then admit, read, identify and route. */
export type InboundStage = (typeof INBOUND_STAGES)[number];
