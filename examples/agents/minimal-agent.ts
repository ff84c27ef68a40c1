/**
 * A MINIMAL MFR PEER AGENT in TypeScript (an example for agent authors; see docs/agents.md).
 *
 * It joins the room, answers every ModelContributionRequest with a small formal model
 * (a box to move from one shelf to another) and every SolutionRequest with a plan for it,
 * and answers a fix round or a repair round that names it. What it says is fixed; a real
 * agent would build its model and plan from the problem, and its fixes from the round's `issues`.
 *
 *   npm run build
 *   XMPP_SERVICE=xmpp://localhost:5222 XMPP_DOMAIN=localhost XMPP_USERNAME=boxer \
 *   XMPP_PASSWORD=… MFR_ROOM=mfr@conference.localhost AGENT_NICK=Boxer \
 *   node dist/examples/agents/minimal-agent.js
 *
 * AGENT_START_WRONG=1 makes its first contribution break a rule of the shapes (a goal that
 * says nothing) and its first plan invalid (the shelves swapped), so that the coordinator
 * asks it to fix the model and to repair the plan; it then sends the sound model and the
 * valid plan.
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

/**
 * The model this agent contributes: relative IRIs, so another agent's `<#box>` is the same node.
 * The initial state hangs on the state variable `<#where>`: any subject may carry mfr:initialState.
 */
const MODEL_WITHOUT_GOAL = `@prefix mfr: <http://purl.org/stuff/mfr/> .
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
`;
export const MINIMAL_MODEL = `${MODEL_WITHOUT_GOAL}<#moved> a mfr:Goal ; rdfs:label "the box is on shelf B" ; mfr:expression "(on box shelfB)" .\n`;
/** A goal with no rdfs:label, rdfs:comment or mfr:expression is a Violation of the shapes. */
export const WRONG_MODEL = `${MODEL_WITHOUT_GOAL}<#moved> a mfr:Goal .\n`;

/** The plan: steps name an action by its mfr:actionName and objects by their symbols. */
export const MINIMAL_PLAN = ["move(box, shelfA, shelfB)"];
/** The shelves swapped: the box is not on shelf B, so the precondition fails at step 1. */
export const WRONG_PLAN = ["move(box, shelfB, shelfA)"];

export interface MinimalAgentOptions {
  service: string;
  domain: string;
  username: string;
  password: string;
  room: string;
  nick: string;
  /** The first contribution and the first plan are wrong on purpose (AGENT_START_WRONG=1). */
  startWrong?: boolean;
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
    const occupant = `${this.options.room}/${this.options.nick}`;
    await this.xmpp.send(xml("presence"));
    // In the room once it sends our own presence back: what is sent before may not reach us.
    const joined = new Promise<void>((resolve, reject) => {
      const onPresence = (stanza: Stanza): void => {
        if (!stanza.is("presence") || stanza.attrs.from !== occupant) return;
        this.xmpp.off("stanza", onPresence);
        if (stanza.attrs.type === "error") reject(new Error(`cannot join ${occupant}: ${stanza.getChild("error")?.getChildElements()[0]?.name ?? "error"}`));
        else resolve();
      };
      this.xmpp.on("stanza", onPresence);
    });
    // No history: the agent answers what is asked from now on.
    await this.xmpp.send(xml("presence", { to: occupant }, xml("x", { xmlns: "http://jabber.org/protocol/muc" }, xml("history", { maxstanzas: "0" }))));
    await joined;
    // Any Lingue payload is evidence that this occupant is an agent.
    await this.send(`${this.options.nick} is ready.`, MODE.chat, "text/plain", `${this.options.nick} ready`);
    console.log(`minimal-agent: ${this.options.nick} joined ${this.options.room}`);
  }

  private async onStanza(stanza: Stanza): Promise<void> {
    // Every stanza comes here, with or without a <body>: protocol messages need not have one.
    if (!stanza.is("message") || stanza.attrs.type !== "groupchat") return;
    if (String(stanza.attrs.from) === `${this.options.room}/${this.options.nick}`) return; // our own echo
    if (stanza.getChild("delay", "urn:xmpp:delay")) return; // history from before we joined
    const payload = stanza.getChild("payload", LINGUE);
    if (!payload || payload.attrs.mode !== MODE.negotiation) return; // dispatch on the payload, not the body
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
    const kind = type === `${MFR}ModelContributionRequest` ? "model" : type === `${MFR}SolutionRequest` ? "plan" : undefined;
    if (kind === undefined || !this.once(sessionId, kind, round)) return;
    // What to fix: per agent nick, a list of sentences. A real agent would act on them.
    const issues = (message.issues ?? {}) as Record<string, string[] | undefined>;
    for (const issue of issues[this.options.nick] ?? []) console.log(`minimal-agent: ${this.options.nick} asked in ${type.slice(MFR.length)} round ${round}: ${issue}`);
    const wrong = this.options.startWrong === true && round === 1;

    if (kind === "model") {
      const body = `${round > 1 ? "Fixed contribution" : "Model contribution"} for ${sessionId}.`;
      await this.send(body, MODE.rdf, "text/turtle", wrong ? WRONG_MODEL : MINIMAL_MODEL, { sessionId });
    } else {
      const solution = { success: true, message: "Move the box in one step.", plan: wrong ? WRONG_PLAN : MINIMAL_PLAN };
      const proposal = { messageType: `${MFR}SolutionProposal`, sessionId, solution };
      await this.send(`Solution proposal for ${sessionId}.`, MODE.negotiation, "application/json", JSON.stringify(proposal), { sessionId }, `${MFR}SolutionProposal`);
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
    startWrong: process.env.AGENT_START_WRONG === "1",
  });
  const stop = (): void => void agent.stop().then(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  await agent.start();
}
