/**
 * A MINIMAL MFR PEER AGENT in TypeScript (an example for agent authors; see docs/agents.md).
 *
 * It joins the room, answers every ModelContributionRequest with a small formal model
 * (a box to move from one shelf to another) and every SolutionRequest with a plan for it.
 * What it says is fixed; a real agent would build its model and plan from the problem.
 *
 *   npm run build
 *   XMPP_SERVICE=xmpp://localhost:5222 XMPP_DOMAIN=localhost XMPP_USERNAME=boxer \
 *   XMPP_PASSWORD=… MFR_ROOM=mfr@conference.localhost AGENT_NICK=Boxer \
 *   node dist/examples/agents/minimal-agent.js
 *
 * It stops on SIGTERM or SIGINT. Only @xmpp/client is used, and only the wire contract of
 * docs/protocol.md is relied on.
 */
import { realpathSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { client, xml, type Client } from "@xmpp/client";

const LINGUE = "http://purl.org/stuff/lingue/";
const MFR = "http://purl.org/stuff/mfr/";
const MODE = {
  negotiation: `${LINGUE}ModelNegotiation`,
  rdf: `${LINGUE}ModelFirstRDF`,
  chat: `${LINGUE}HumanChat`,
};

/** The model this agent contributes: relative IRIs, so another agent's `<#box>` is the same node. */
export const MINIMAL_MODEL = `@prefix mfr: <http://purl.org/stuff/mfr/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
<#box> a mfr:Entity ; mfr:entityType "Box" ; rdfs:label "the box" .
<#shelfA> a mfr:Entity ; mfr:entityType "Shelf" ; rdfs:label "shelf A" .
<#shelfB> a mfr:Entity ; mfr:entityType "Shelf" ; rdfs:label "shelf B" .
<#where> a mfr:StateVariable ; rdfs:label "where the box is" ; mfr:initialState "(on box shelfA)" .
<#move> a mfr:Action ; mfr:actionName "move" ; mfr:hasParameter ( "?b - Box" "?from - Shelf" "?to - Shelf" ) ;
  mfr:hasPrecondition <#move-pre> ; mfr:hasEffect <#move-eff> .
<#move-pre> a mfr:Precondition ; mfr:expression "(and (on ?b ?from) (not (= ?from ?to)))" .
<#move-eff> a mfr:Effect ; mfr:expression "(and (on ?b ?to) (not (on ?b ?from)))" .
<#onePlace> a mfr:Constraint ; mfr:constraintType "invariant" ; mfr:appliesTo <#box> ;
  mfr:constraintExpression "(not (and (on box shelfA) (on box shelfB)))" .
<#moved> a mfr:Goal ; rdfs:label "the box is on shelf B" ; mfr:expression "(on box shelfB)" .
`;

/** The plan: steps name an action by its mfr:actionName and objects by their symbols. */
export const MINIMAL_PLAN = ["move(box, shelfA, shelfB)"];

export interface MinimalAgentOptions {
  service: string;
  domain: string;
  username: string;
  password: string;
  room: string;
  nick: string;
}

type Stanza = ReturnType<typeof xml>;

export class MinimalAgent {
  private readonly xmpp: Client;
  /** Origin-ids already handled: a message the coordinator sends again has the same one. */
  private readonly seen = new Set<string>();
  /** (session, kind, round) already answered: each is answered once. */
  private readonly answered = new Set<string>();

  constructor(private readonly options: MinimalAgentOptions) {
    this.xmpp = client({ service: options.service, domain: options.domain, username: options.username, password: options.password, resource: options.nick });
    this.xmpp.on("error", (err: Error) => console.error(`minimal-agent: ${err.message}`));
    this.xmpp.on("stanza", (stanza: Stanza) => void this.onStanza(stanza).catch((err: Error) => console.error(`minimal-agent: ${err.message}`)));
    // @xmpp/client reconnects by itself; join the room again on every (re)connection.
    this.xmpp.on("online", () => void this.join().catch((err: Error) => console.error(`minimal-agent: ${err.message}`)));
  }

  async start(): Promise<void> {
    await this.xmpp.start();
  }

  async stop(): Promise<void> {
    await this.xmpp.stop().catch(() => undefined);
  }

  private async join(): Promise<void> {
    await this.xmpp.send(xml("presence"));
    // No history: the agent answers what is asked from now on.
    await this.xmpp.send(xml("presence", { to: `${this.options.room}/${this.options.nick}` }, xml("x", { xmlns: "http://jabber.org/protocol/muc" }, xml("history", { maxstanzas: "0" }))));
    // Any Lingue payload is evidence that this occupant is an agent.
    await this.send(`${this.options.nick} is ready.`, MODE.chat, "text/plain", `${this.options.nick} ready`);
    console.log(`minimal-agent: ${this.options.nick} joined ${this.options.room}`);
  }

  private async onStanza(stanza: Stanza): Promise<void> {
    if (!stanza.is("message") || stanza.attrs.type !== "groupchat") return;
    if (String(stanza.attrs.from) === `${this.options.room}/${this.options.nick}`) return; // our own echo
    if (stanza.getChild("delay", "urn:xmpp:delay")) return; // history from before we joined
    const payload = stanza.getChild("payload", LINGUE);
    if (!payload || payload.attrs.mode !== MODE.negotiation) return;
    const originId = stanza.getChild("origin-id", "urn:xmpp:sid:0")?.attrs.id as string | undefined;
    if (originId !== undefined) {
      if (this.seen.has(originId)) return;
      this.seen.add(originId);
    }
    const message = JSON.parse(payload.text()) as Record<string, unknown>;
    const type = String(message.messageType ?? payload.attrs.messageType ?? "");
    const sessionId = String(message.sessionId ?? "");
    const round = Number(message.round ?? 1);
    // A fix or repair round names the agents it asks; the others stay quiet.
    const asked = message.requestedAgents as string[] | undefined;
    if (round > 1 && Array.isArray(asked) && !asked.includes(this.options.nick)) return;

    if (type === `${MFR}ModelContributionRequest` && this.once(sessionId, "model", round)) {
      await this.send(`Model contribution for ${sessionId}.`, MODE.rdf, "text/turtle", MINIMAL_MODEL, { sessionId });
    } else if (type === `${MFR}SolutionRequest` && this.once(sessionId, "plan", round)) {
      const solution = { success: true, message: "Move the box in one step.", plan: MINIMAL_PLAN };
      const proposal = { messageType: `${MFR}SolutionProposal`, sessionId, solution };
      await this.send(`Solution proposal for ${sessionId}.`, MODE.negotiation, "application/json", JSON.stringify(proposal), {}, `${MFR}SolutionProposal`);
    }
  }

  private once(sessionId: string, kind: string, round: number): boolean {
    const key = `${sessionId} ${kind} ${round}`;
    if (this.answered.has(key)) return false;
    this.answered.add(key);
    return true;
  }

  private async send(body: string, mode: string, mime: string, content: string, siblings: Record<string, string> = {}, messageType?: string): Promise<void> {
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

function required(name: string): string {
  const value = process.env[name];
  if (!value) {
    console.error(`minimal-agent: set ${name} (see the header of examples/agents/minimal-agent.ts)`);
    process.exit(2);
  }
  return value;
}

// Run as a program (not when imported).
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  const agent = new MinimalAgent({
    service: required("XMPP_SERVICE"),
    domain: required("XMPP_DOMAIN"),
    username: required("XMPP_USERNAME"),
    password: required("XMPP_PASSWORD"),
    room: required("MFR_ROOM"),
    nick: process.env.AGENT_NICK ?? "MinimalAgent",
  });
  const stop = (): void => void agent.stop().then(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  await agent.start();
}
