/**
 * The room side of bench/stalls.ts, in a child process of its own so that nothing it does
 * (building the contributions, parsing the model parts it hears) runs on the coordinator's
 * main thread, which the bench measures.
 *
 * Five agents contribute a realistic model (bench/pipeline/realistic-model.ts, without its
 * deliberate defects, so the session reaches its SolutionRequest) in parts, as docs/protocol.md
 * "A contribution too large for one stanza" says: each part a complete Turtle document with
 * the siblings `sessionId` and `modelPart` = "k/n". Each agent proposes a plan when the
 * SolutionRequest arrives; a person in the room starts the session and hears it end.
 *
 * With `--probers`, this process is instead three people who take turns sending `help` to
 * the coordinator in 1:1 chat every ~200 ms (one person alone would be throttled by the
 * shipped mfr:messagesPerMinute of 120) and time each answer. They are not in the room and
 * have a process of their own, so the model parts the room carries (which every occupant
 * must parse) do not delay them: what they measure is the coordinator and the server.
 *
 * Talks to the parent over IPC: it receives one `RoomPlan` and sends `RoomReport`s.
 */
import { xml } from "@xmpp/client";
import { realisticModel, AGENTS } from "../pipeline/realistic-model.js";
import { turtleWireBytes } from "../../src/protocol/model-parts.js";
import { LINGUE, MFR, Mode } from "../../src/base/vocab.js";
import { Occupant } from "../support/occupant.js";

export interface RoomPlan {
  service: string;
  domain: string;
  room: string;
  coordinatorNick: string;
  /** The coordinator's bare JID, for help in 1:1 chat. */
  coordinatorJid: string;
  triples: number;
  /** Turtle wire bytes per contribution part (below the coordinator's inbound limit). */
  partBytes: number;
  helpEveryMs: number;
  accounts: Record<string, { username: string; password: string }>;
}

export type RoomReport =
  | { kind: "ready"; parts: number; contributedTriples: number }
  | { kind: "help"; at: number; latencyMs: number }
  /** A ping to the server itself (XEP-0199), sent with each help: what the server alone takes then. */
  | { kind: "server-ping"; at: number; latencyMs: number }
  | { kind: "contributed"; agent: string; parts: number }
  | { kind: "solution-request"; modelParts: number }
  | { kind: "complete"; status: string; reason: string | null }
  | { kind: "error"; message: string };

/** The person in the room, and the three who ask for help in 1:1 chat. */
export const STARTER = "pat";
export const PROBERS = ["quin", "rue", "sol"];

function report(r: RoomReport): void {
  process.send?.(r);
}

/** One of the plan's accounts, as a client of the plan's room. */
function occupant(plan: RoomPlan, nick: string): Occupant {
  const account = plan.accounts[nick];
  if (!account) throw new Error(`no account for ${nick}`);
  return new Occupant(plan, account.username, account.password, plan.room, nick);
}

/**
 * A contribution as parts: its statements (blocks starting at column 0) packed in order,
 * each part headed by the contribution's prefixes, each within `partBytes` on the wire.
 * Blank-node labels are scoped to the whole contribution (docs/protocol.md), so a labelled blank
 * node may be used in one part and described in another.
 */
export function contributionParts(turtle: string, partBytes: number): string[] {
  const blocks = turtle.split(/\n(?=[^\s])/);
  const header = blocks.filter((b) => b.startsWith("@prefix")).join("\n") + "\n";
  const statements = blocks.filter((b) => !b.startsWith("@prefix") && b.trim() !== "");
  const parts: string[] = [];
  let current: string[] = [];
  let bytes = turtleWireBytes(header);
  for (const statement of statements) {
    const size = turtleWireBytes(statement) + 1;
    if (current.length > 0 && bytes + size > partBytes) {
      parts.push(header + current.join("\n") + "\n");
      current = [];
      bytes = turtleWireBytes(header);
    }
    current.push(statement);
    bytes += size;
  }
  if (current.length > 0) parts.push(header + current.join("\n") + "\n");
  return parts;
}

async function runAgents(plan: RoomPlan): Promise<void> {
  const model = realisticModel(plan.triples, 20260615, { defects: false });
  const partsOf = new Map(model.contributions.map((c) => [c.agent as string, contributionParts(c.turtle, plan.partBytes)]));
  const agents = AGENTS.map((nick) => occupant(plan, nick));
  const starter = occupant(plan, STARTER);

  for (const agent of agents) {
    const parts = partsOf.get(agent.nick) ?? [];
    let proposed = false;
    agent.onMessage = (stanza) => {
      const payload = stanza.getChild("payload", LINGUE);
      if (!payload || payload.attrs.mode !== Mode.ModelNegotiation) return;
      const type = String(payload.attrs.messageType ?? "");
      if (type === `${MFR}ModelContributionRequest`) {
        const sessionId = stanza.getChild("sessionId", LINGUE)?.text() ?? "";
        void (async () => {
          for (const [i, part] of parts.entries()) {
            await agent.say(`Contribution for ${sessionId}, part ${i + 1} of ${parts.length}.`, { mode: Mode.ModelFirstRDF, mime: "text/turtle", content: part }, { sessionId, modelPart: `${i + 1}/${parts.length}` });
          }
          report({ kind: "contributed", agent: agent.nick, parts: parts.length });
        })();
      } else if (type === `${MFR}SolutionRequest` && !proposed) {
        proposed = true;
        const json = JSON.parse(payload.text()) as { sessionId: string; modelParts?: number };
        if (agent.nick === AGENTS[0]) report({ kind: "solution-request", modelParts: json.modelParts ?? 0 });
        const proposal = { messageType: `${MFR}SolutionProposal`, sessionId: json.sessionId, solution: { success: true, message: `Plan by ${agent.nick}.`, plan: [`deliver-0(v0, parcel0, p0)`] } };
        void agent.say(`Proposal for ${json.sessionId}.`, { mode: Mode.ModelNegotiation, mime: "application/json", content: JSON.stringify(proposal), messageType: `${MFR}SolutionProposal` });
      }
    };
  }

  starter.onMessage = (stanza) => {
    const payload = stanza.getChild("payload", LINGUE);
    if (payload?.attrs.messageType === `${MFR}SessionComplete`) {
      const json = JSON.parse(payload.text()) as { status: string; reason?: string };
      report({ kind: "complete", status: json.status, reason: json.reason ?? null });
    }
  };

  for (const o of [starter, ...agents]) await o.join();
  for (const agent of agents) {
    // Peers announce themselves; the coordinator learns from protocol traffic who is an agent.
    await agent.say(`${agent.nick} ready`, { mode: Mode.HumanChat, mime: "text/plain", content: `${agent.nick} ready` });
  }
  report({ kind: "ready", parts: [...partsOf.values()].reduce((n, p) => n + p.length, 0), contributedTriples: model.writtenTriples });
  process.on("message", (m: { kind: string; problem?: string }) => {
    if (m.kind === "start") void starter.say(`mfr-start ${m.problem ?? "deliver every parcel"}`);
    if (m.kind === "stop") process.exit(0);
  });
}

async function runProbers(plan: RoomPlan): Promise<void> {
  const people = PROBERS.map((nick) => occupant(plan, nick));
  const helpReply = `${plan.coordinatorNick} runs Model-First Reasoning sessions.`;
  // Each person has one question out at a time at most (every 600 ms each); answers come back in order.
  const questions = new Map<Occupant, number[]>();
  for (const person of people) {
    const asked: number[] = [];
    questions.set(person, asked);
    person.onDirect = (stanza) => {
      if (stanza.attrs.type !== "chat" || !(stanza.getChildText("body") ?? "").startsWith(helpReply)) return;
      const sentAt = asked.shift();
      if (sentAt !== undefined) report({ kind: "help", at: Date.now(), latencyMs: performance.now() - sentAt });
    };
    await person.connect();
  }
  report({ kind: "ready", parts: 0, contributedTriples: 0 });
  let turn = 0;
  setInterval(() => {
    const person = people[turn++ % people.length] as Occupant;
    questions.get(person)?.push(performance.now());
    void person.xmpp.send(xml("message", { to: plan.coordinatorJid, type: "chat" }, xml("body", {}, "help")));
    // The same trip to the server alone: when both are slow, the wait is the server's (or the machine's), not the coordinator's.
    const pinged = performance.now();
    person.xmpp.iqCaller.request(xml("iq", { type: "get", to: plan.domain }, xml("ping", { xmlns: "urn:xmpp:ping" })), 30_000).then(
      () => report({ kind: "server-ping", at: Date.now(), latencyMs: performance.now() - pinged }),
      () => undefined,
    );
  }, plan.helpEveryMs);
  process.on("message", (m: { kind: string }) => {
    if (m.kind === "stop") process.exit(0);
  });
}

process.once("message", (plan: RoomPlan) => {
  (process.argv.includes("--probers") ? runProbers(plan) : runAgents(plan)).catch((err: unknown) => {
    report({ kind: "error", message: err instanceof Error ? err.stack ?? err.message : String(err) });
    process.exit(1);
  });
});
