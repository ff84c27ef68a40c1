/**
 * EXAMPLE AGENT (for the demo and for agent authors; not part of the coordinator).
 *
 * A minimal MFR peer agent that speaks the wire protocol of docs/protocol.md: it joins the
 * room, answers every ModelContributionRequest with a Turtle contribution and every
 * SolutionRequest with a SolutionProposal. What it says is prepared in advance; a real
 * agent would build its contribution and its plan with a language model or a planner.
 * Given a contributor (an imported PDDL model, see run-example-agent.ts), that is what it
 * contributes, in parts when the model is large.
 */
import { client, xml, type Client } from "@xmpp/client";
import type { PddlContributor } from "../../src/agents/pddl-contribution/index.js";

const LINGUE = "http://purl.org/stuff/lingue/";
const MFR = "http://purl.org/stuff/mfr/";
const MODE_NEGOTIATION = `${LINGUE}ModelNegotiation`;
const MODE_RDF = `${LINGUE}ModelFirstRDF`;
const MODE_CHAT = `${LINGUE}HumanChat`;

export interface ExampleAgentScript {
  /** Turtle to contribute in round n (1 = first request, >1 = fix round), given the issues sent to us. */
  contribution(round: number, issues: string[]): string | undefined;
  /**
   * The `solution` of our SolutionProposal, given the model we received, the solution round
   * (1, or a repair round) and the issues the coordinator found in our previous plan.
   */
  solution(model: string, round: number, issues: string[]): Record<string, unknown> | undefined;
}

/** The script of an agent whose contributor answers: it says nothing itself and proposes no plan. */
export const SILENT_SCRIPT: ExampleAgentScript = { contribution: () => undefined, solution: () => undefined };

export interface ExampleAgentOptions {
  service: string;
  domain: string;
  username: string;
  password: string;
  room: string;
  nick: string;
  script: ExampleAgentScript;
  /** Milliseconds to "think" before answering, so a transcript reads naturally. */
  thinkMs?: number;
  /** When given, it answers ModelContributionRequests instead of `script.contribution`. */
  contributor?: PddlContributor;
}

export class ExampleAgent {
  private readonly xmpp: Client;

  constructor(private readonly options: ExampleAgentOptions) {
    this.xmpp = client({ service: options.service, domain: options.domain, username: options.username, password: options.password, resource: options.nick });
    this.xmpp.on("error", () => undefined); // reconnect errors are not interesting here
    this.xmpp.on("stanza", (stanza) => void this.onStanza(stanza).catch(() => undefined));
  }

  async start(): Promise<void> {
    await this.xmpp.start();
    await this.xmpp.send(xml("presence"));
    await this.xmpp.send(
      xml("presence", { to: `${this.options.room}/${this.options.nick}` }, xml("x", { xmlns: "http://jabber.org/protocol/muc" }, xml("history", { maxstanzas: "0" }))),
    );
    // Peers announce themselves; the coordinator learns from protocol traffic who is an agent.
    await this.groupchat(`${this.options.nick} is ready.`, MODE_CHAT, "text/plain", `${this.options.nick} ready`);
  }

  async stop(): Promise<void> {
    await this.xmpp.stop().catch(() => undefined);
  }

  private async onStanza(stanza: ReturnType<typeof xml>): Promise<void> {
    if (!stanza.is("message") || stanza.attrs.type !== "groupchat") return;
    if (String(stanza.attrs.from).endsWith(`/${this.options.nick}`)) return; // our own echo
    const payload = stanza.getChild("payload", LINGUE);
    if (!payload || payload.attrs.mode !== MODE_NEGOTIATION) return;
    const message = JSON.parse(payload.text()) as Record<string, unknown>;
    const sessionId = String(message.sessionId);

    if (message.messageType === `${MFR}ModelContributionRequest` && this.options.contributor) {
      const answer = this.options.contributor.answer(this.options.room, payload.text(), payload.attrs.messageType as string | undefined);
      // Nothing else would tell the operator why this agent stays silent.
      if (answer.kind === "cannot-send") console.error(`${this.options.nick}: the contribution for ${answer.sessionId} cannot be sent: ${answer.error}`);
      if (answer.kind !== "send") return;
      await this.think();
      for (const stanza of answer.stanzas) await this.xmpp.send(stanza);
    } else if (message.messageType === `${MFR}ModelContributionRequest`) {
      const round = Number(message.round ?? 1);
      const issues = ((message.issues as Record<string, string[]> | undefined) ?? {})[this.options.nick] ?? [];
      const turtle = this.options.script.contribution(round, issues);
      if (turtle === undefined) return;
      await this.think();
      await this.groupchat(
        round === 1 ? `My model contribution for ${sessionId}.` : `Fixed contribution for ${sessionId}.`,
        MODE_RDF,
        "text/turtle",
        turtle,
        { sessionId },
      );
    } else if (message.messageType === `${MFR}SolutionRequest`) {
      const round = Number(message.round ?? 1);
      const asked = message.requestedAgents as string[] | undefined;
      // A repair round asks only the proposers whose plans failed the check.
      if (round > 1 && asked && !asked.includes(this.options.nick)) return;
      const issues = ((message.issues as Record<string, string[]> | undefined) ?? {})[this.options.nick] ?? [];
      const solution = this.options.script.solution(String(message.model ?? ""), round, issues);
      if (solution === undefined) return;
      await this.think();
      const proposal = { messageType: `${MFR}SolutionProposal`, sessionId, solution };
      await this.groupchat(`Solution proposal for ${sessionId}: ${String(solution.message ?? "")}`, MODE_NEGOTIATION, "application/json", JSON.stringify(proposal, null, 2), {}, `${MFR}SolutionProposal`);
    }
  }

  private think(): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, this.options.thinkMs ?? 150));
  }

  private async groupchat(body: string, mode: string, mime: string, content: string, siblings: Record<string, string> = {}, messageType?: string): Promise<void> {
    await this.xmpp.send(
      xml(
        "message",
        { to: this.options.room, type: "groupchat" },
        xml("body", {}, body),
        xml("payload", { xmlns: LINGUE, mode, mime, ...(messageType ? { messageType } : {}) }, content),
        ...Object.entries(siblings).map(([name, value]) => xml(name, { xmlns: LINGUE }, value)),
      ),
    );
  }
}
