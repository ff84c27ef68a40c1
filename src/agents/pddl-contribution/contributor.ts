/**
 * Answers ModelContributionRequests with one fixed contribution (an imported PDDL model):
 * in the first round only, once per session. A fix round asks an agent to change what it
 * said; an imported model cannot change, so sending it again would only repeat it.
 */
import { contributionStanzas } from "../../protocol/contribution-parts.js";
import type { Element } from "../../xmpp/stanza.js";
import { readContributionRequest } from "./request.js";

/** Sessions remembered as answered, so a repeated request is not answered twice. */
const MAX_REMEMBERED = 1_000;

/** What to do about one ModelNegotiation payload. */
export type ContributionAnswer =
  | { kind: "none" }
  | { kind: "send"; sessionId: string; stanzas: Element[] }
  | { kind: "cannot-send"; sessionId: string; error: string };

export interface ContributorOptions {
  /** The agent's nick in the room. */
  nick: string;
  /** No stanza sent is larger than this; a larger contribution goes in parts. */
  maxStanzaBytes: number;
}

/** One agent's answers to ModelContributionRequests. */
export class PddlContributor {
  private readonly answered = new Set<string>();

  constructor(
    private readonly turtle: string,
    private readonly options: ContributorOptions,
  ) {}

  /** The stanzas that answer a ModelNegotiation payload received in `room`, if it is a first-round request not answered yet. */
  answer(room: string, content: string, messageType: string | undefined): ContributionAnswer {
    const request = readContributionRequest(content, messageType);
    if (request === null || request.round > 1 || this.answered.has(request.sessionId)) return { kind: "none" };
    this.remember(request.sessionId);
    const built = contributionStanzas(this.turtle, { room, sessionId: request.sessionId, agent: this.options.nick }, this.options.maxStanzaBytes);
    return built.ok ? { kind: "send", sessionId: request.sessionId, stanzas: built.stanzas } : { kind: "cannot-send", sessionId: request.sessionId, error: built.error };
  }

  private remember(sessionId: string): void {
    this.answered.add(sessionId);
    if (this.answered.size > MAX_REMEMBERED) {
      const oldest = this.answered.values().next().value;
      if (oldest !== undefined) this.answered.delete(oldest);
    }
  }
}
