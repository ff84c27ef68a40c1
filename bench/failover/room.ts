/**
 * A room of bench/failover.ts as its occupants see it: a person who starts sessions (each
 * with a problem text of its own, so a start is matched to its session by the
 * ModelContributionRequest's problemDescription) and who is also the independent observer of
 * what the coordinator says, and instant agents that contribute when asked and propose when
 * sent a SolutionRequest.
 *
 * What it keeps for the figures: every origin-id the coordinator said live in the room (one
 * seen twice is a protocol message duplicated), the SessionCompletes per session (none is a
 * session lost, two a duplicate), which agents sent a contribution to each session and which
 * the SessionComplete's summary counts (the difference: contributions missed).
 */
import { LINGUE, MFR, Mode } from "../../src/base/vocab.js";
import { syntheticContribution } from "../../src/rdf/synthetic.js";
import { Occupant, type Element, type ServerAddress } from "../support/occupant.js";

const NS_SID = "urn:xmpp:sid:0";
const NS_DELAY = "urn:xmpp:delay";

/** One started session, as the person follows it. */
export interface Started {
  problem: string;
  /** Date.now() when `mfr-start` was sent. */
  startedAt: number;
  sessionId?: string;
  completedAt?: number;
  status?: string;
}

/** A ModelNegotiation payload's message type and JSON, or undefined for any other message. */
export function payloadJson(stanza: Element): { type: string; json: Record<string, unknown> } | undefined {
  const payload = stanza.getChild("payload", LINGUE);
  if (!payload || payload.attrs.mode !== Mode.ModelNegotiation) return undefined;
  try {
    const json = JSON.parse(payload.text()) as Record<string, unknown>;
    return { type: String(payload.attrs.messageType ?? json.messageType ?? ""), json };
  } catch {
    return undefined;
  }
}

/** The agents a SessionComplete's summary lists under "Contributors:". */
export function contributorsOf(summary: string): Set<string> {
  const names = new Set<string>();
  let inList = false;
  for (const line of summary.split("\n")) {
    if (line.startsWith("Contributors:")) {
      inList = true;
      continue;
    }
    if (!inList) continue;
    const m = /^ {2}([^:\s][^:]*): /.exec(line);
    if (!m) break;
    names.add(m[1] ?? "");
  }
  return names;
}

/** See the module comment. */
export class BenchRoom {
  readonly started: Started[] = [];
  private readonly byProblem = new Map<string, Started>();
  /** Origin-id → when (Date.now()) the person heard the coordinator say it live in the room, each time. */
  readonly originIds = new Map<string, number[]>();
  /** Session id → SessionCompletes seen. */
  readonly completes = new Map<string, number>();
  /** Session id → the agents its SessionComplete counts as contributors. */
  readonly counted = new Map<string, Set<string>>();
  /** Session id → the agents that sent it a contribution. */
  readonly contributed = new Map<string, Set<string>>();
  /** Every live message of the coordinator in the room: Date.now() when the person heard it. */
  readonly heardAt: number[] = [];
  private readonly person: Occupant;
  private readonly agents: Occupant[] = [];
  private numbered = 0;

  constructor(
    private readonly server: ServerAddress,
    readonly room: string,
    accounts: { person: { username: string; password: string }; agents: Array<{ nick: string; username: string; password: string }> },
    private readonly triples: number,
  ) {
    this.person = new Occupant(server, accounts.person.username, accounts.person.password, room, "pat");
    this.person.onMessage = (stanza) => this.personHears(stanza);
    for (const a of accounts.agents) {
      const agent = new Occupant(server, a.username, a.password, room, a.nick);
      this.instantAgent(agent);
      this.agents.push(agent);
    }
  }

  /** The person and the agents join; the agents announce themselves. */
  async join(): Promise<void> {
    await this.person.join();
    for (const agent of this.agents) {
      await agent.join();
      await agent.say(`${agent.nick} ready`, { mode: Mode.HumanChat, mime: "text/plain", content: `${agent.nick} ready` });
    }
  }

  /** Whether the coordinator's nick is in the room (as the person sees it). */
  coordinatorPresent(): boolean {
    return this.person.present.has("Coordinator");
  }

  /** Sends `mfr-start` with a problem text of its own. */
  start(label = "session"): Started {
    this.numbered += 1;
    const s: Started = { problem: `Failover bench ${label} ${this.numbered} in ${this.room}: deliver the goods`, startedAt: Date.now() };
    this.started.push(s);
    this.byProblem.set(s.problem, s);
    void this.person.say(`mfr-start ${s.problem}`).catch(() => undefined);
    return s;
  }

  /** Origin-ids said more than once. */
  duplicated(): number {
    let n = 0;
    for (const times of this.originIds.values()) n += times.length - 1;
    return n;
  }

  /** Sessions whose SessionComplete came more than once. */
  completedTwice(): number {
    return [...this.completes.values()].filter((n) => n > 1).length;
  }

  /** The origin-ids said more than once, with the moments they were heard. */
  duplicates(): Array<{ originId: string; heardAt: number[] }> {
    return [...this.originIds].filter(([, times]) => times.length > 1).map(([originId, heardAt]) => ({ originId, heardAt }));
  }

  /** Starts with no SessionComplete (yet). */
  unfinished(): Started[] {
    return this.started.filter((s) => s.completedAt === undefined);
  }

  /** Contributions sent to a completed session that its SessionComplete does not count. */
  missedContributions(): Array<{ sessionId: string; agent: string }> {
    const missed: Array<{ sessionId: string; agent: string }> = [];
    for (const [sessionId, counted] of this.counted) {
      for (const agent of this.contributed.get(sessionId) ?? []) if (!counted.has(agent)) missed.push({ sessionId, agent });
    }
    return missed;
  }

  async stop(): Promise<void> {
    for (const o of [this.person, ...this.agents]) await o.stop();
  }

  private personHears(stanza: Element): void {
    if (String(stanza.attrs.from) !== `${this.room}/Coordinator` || stanza.getChild("delay", NS_DELAY)) return;
    this.heardAt.push(Date.now());
    const originId = stanza.getChild("origin-id", NS_SID)?.attrs.id;
    if (originId) this.originIds.set(String(originId), [...(this.originIds.get(String(originId)) ?? []), Date.now()]);
    const p = payloadJson(stanza);
    if (!p) return;
    const sessionId = String(p.json.sessionId ?? "");
    if (p.type === `${MFR}ModelContributionRequest`) {
      const s = this.byProblem.get(String(p.json.problemDescription ?? ""));
      if (s && s.sessionId === undefined) s.sessionId = sessionId;
    } else if (p.type === `${MFR}SessionComplete`) {
      this.completes.set(sessionId, (this.completes.get(sessionId) ?? 0) + 1);
      this.counted.set(sessionId, contributorsOf(String(p.json.summary ?? "")));
      const s = this.started.find((x) => x.sessionId === sessionId);
      if (s && s.completedAt === undefined) {
        s.completedAt = Date.now();
        s.status = String(p.json.status ?? "");
      }
    }
  }

  /** Contributes at once when asked (round 1, or a fix round that names it), proposes at once when sent the model. */
  private instantAgent(agent: Occupant): void {
    const turtle = syntheticContribution(agent.nick, this.triples);
    agent.onMessage = (stanza) => {
      if (String(stanza.attrs.from) !== `${this.room}/Coordinator` || stanza.getChild("delay", NS_DELAY)) return;
      const p = payloadJson(stanza);
      if (!p) return;
      const sessionId = String(p.json.sessionId ?? "");
      if (p.type === `${MFR}ModelContributionRequest`) {
        const asked = p.json.requestedAgents;
        if (Array.isArray(asked) && asked.length > 0 && !asked.includes(agent.nick)) return;
        const mine = this.contributed.get(sessionId) ?? new Set<string>();
        mine.add(agent.nick);
        this.contributed.set(sessionId, mine);
        void agent.say(`Contribution for ${sessionId}.`, { mode: Mode.ModelFirstRDF, mime: "text/turtle", content: turtle }, { sessionId }).catch(() => undefined);
      } else if (p.type === `${MFR}SolutionRequest`) {
        const asked = p.json.requestedAgents;
        if (Array.isArray(asked) && asked.length > 0 && !asked.includes(agent.nick)) return;
        const proposal = { messageType: `${MFR}SolutionProposal`, sessionId, solution: { success: true, message: `Plan by ${agent.nick}.`, plan: [`move-${agent.nick}(truck)`] } };
        void agent
          .say(`Proposal for ${sessionId}.`, { mode: Mode.ModelNegotiation, mime: "application/json", content: JSON.stringify(proposal), messageType: `${MFR}SolutionProposal` })
          .catch(() => undefined);
      }
    };
  }
}
