/**
 * The shell's side of choosing agents: keeps the catalog (evidence about agents) in step with
 * the room and the traffic, persists the evidence, and turns commands, debate lines and
 * departures into inputs of the session core, with the room as it is now attached as data.
 * The decisions themselves are rules of the core (session/selection-rules.ts).
 */
import { basename } from "node:path";
import type { Logger } from "pino";
import { loadAgentProfiles } from "./agent-profile.js";
import { AgentCatalog, type OccupantFacts, type Someone } from "./catalog.js";
import type { EvidenceJournal, EvidenceRow } from "./evidence.js";
import { parseDebateLine } from "./debate-lines.js";
import { agentsListing } from "./agents-listing.js";
import { selectionWording } from "../session/selection-report.js";
import { answersRequests, solvesOnly, type RoomView } from "../session/room-view.js";
import { mapNames, mappedAgents } from "../session/selection-names.js";
import { sameAgent } from "../session/identity.js";
import type { Participant, Session } from "../session/types.js";
import type { ChooseAgents, Input } from "../session/step-io.js";

export interface ChooserOptions {
  /** Where peer profiles are read (mfr:agentsDir); null: none. */
  agentsDir: string | null;
  /** The coordinator's own profile file, which is not a peer. */
  ownProfile: string;
  ownNick: string;
  chairNick: string;
  enableDebate: boolean;
  log: Logger;
  now: () => number;
  /** Asks an occupant for its disco#info features (null: no answer). */
  discover: (nick: string) => Promise<string[] | null>;
  /** Where evidence is kept across restarts; without one it lives in memory only. */
  journal?: EvidenceJournal;
}

/** How a new session should begin, as the core's start input needs it. */
export interface StartPlan {
  expectedAgents: string[];
  expectedProposers: string[] | null;
  /** Agents that propose without modelling; the solution window waits for them too. */
  expectedSolvers: string[];
  approvalRequired: string[];
  room?: RoomView;
  choose?: (sessionId: string) => ChooseAgents;
  /** Said before the session starts, e.g. why there is no debate. */
  note?: string;
}

export class AgentChooser {
  readonly catalog: AgentCatalog;

  constructor(private readonly options: ChooserOptions) {
    const loaded = options.agentsDir === null ? { profiles: [], problems: [] } : loadAgentProfiles(options.agentsDir, { excludeFiles: [basename(options.ownProfile)] });
    for (const problem of loaded.problems) options.log.warn({ problem }, "agent profile skipped");
    let evidence: EvidenceRow[] = [];
    try {
      evidence = options.journal?.loadEvidence() ?? [];
    } catch (err) {
      options.log.error({ err }, "agent evidence could not be read; starting without it");
    }
    options.log.info({ agents: loaded.profiles.map((p) => p.nick), dir: options.agentsDir, evidence: evidence.length }, "agent catalog loaded");
    this.catalog = new AgentCatalog(loaded.profiles, { selfNick: options.ownNick, chairNick: options.chairNick, evidence });
  }

  occupantJoined(occupant: OccupantFacts): void {
    this.catalog.occupantJoined(occupant);
    if (!this.catalog.needsDiscovery(occupant.nick)) return;
    void this.options.discover(occupant.nick).then((features) => {
      const row = this.catalog.featuresDiscovered(occupant.nick, features ?? [], this.options.now());
      if (row) this.persist(row, "advertises Lingue features");
    });
  }

  /** The occupant that left, as the catalog knew it (for departures). */
  occupantLeft(nick: string): OccupantFacts | undefined {
    return this.catalog.occupantLeft(nick);
  }

  /** A protocol message from an occupant: it is an agent; contributions and proposals are counted. */
  protocolFrom(who: OccupantFacts, what: "contribution" | "proposal" | "other"): void {
    this.persist(this.catalog.noteProtocol(who, what, this.options.now()), "sent protocol messages");
  }

  /** Someone whose command was taken: a person, never invited to work. */
  commandFrom(who: OccupantFacts): void {
    const row = this.catalog.notePerson(who, this.options.now());
    if (row) this.persist(row, "typed a command");
  }

  isAgent(who: Someone): boolean {
    return this.catalog.isAgent(who);
  }

  listing(): string {
    return agentsListing(this.catalog.listing());
  }

  /** The room as it is now for a session started by `by` (who is never a candidate). */
  roomFor(by: Participant): RoomView {
    return this.catalog.roomView([{ nick: by.nick, identity: by.identity, realJid: by.jid }]);
  }

  /** `mfr-start`: everyone present is invited; those acting in the world need approval first. */
  planStart(by: Participant): StartPlan {
    const room = this.roomFor(by);
    return { ...this.expectations(room), approvalRequired: room.candidates.filter((c) => c.needsApproval).map((c) => c.nick) };
  }

  /**
   * `debate` / `Q:`: a Chair's debate when one is present and free, otherwise selection from
   * the room. Only one debate runs at a time, so a Chair's lines can never be bound to the
   * wrong session.
   */
  planDebate(by: Participant, debating: readonly Session[]): StartPlan {
    const room = this.roomFor(by);
    const base = { ...this.expectations(room), approvalRequired: room.candidates.filter((c) => c.needsApproval).map((c) => c.nick), room };
    this.logCandidates(room);
    const chair = this.catalog.presentChair();
    if (!this.options.enableDebate || !chair) {
      return { ...base, choose: () => ({ method: "catalog" }), ...(this.options.enableDebate ? { note: selectionWording.noChair(this.options.chairNick) } : {}) };
    }
    const busy = debating[0];
    if (busy) return { ...base, choose: () => ({ method: "catalog" }), note: selectionWording.chairBusy(chair.nick, busy.id) };
    return { ...base, choose: () => ({ method: "debate", chair: chair.nick, chairIdentity: chair.identity }) };
  }

  /**
   * A room line as a debate input for the session being debated, or null when it is not one.
   * Lines only the Chair may say go to the core from the Chair's nick or the pinned Chair;
   * the core decides by identity whether it really is the Chair.
   */
  debateInput(from: Participant, body: string, debating: readonly Session[]): Extract<Input, { kind: "debate" }> | null {
    const line = parseDebateLine(body);
    if (!line) return null;
    // A line naming a session id goes to that session; otherwise to the one debate running.
    const target = debating.find((s) => body.includes(s.id)) ?? (debating.length === 1 ? debating[0] : undefined);
    if (!target) return null;
    const selection = target.selection;
    const chairLine = line.kind === "consensus" || line.kind === "no-consensus" || line.kind === "started";
    const maybeChair =
      (typeof selection?.chair === "string" && sameAgent(selection.chair, from.nick)) || (selection?.chairPin?.identity !== undefined && selection.chairPin.identity === from.identity);
    if (chairLine && !maybeChair) return null;
    if (line.kind === "started") return { kind: "debate", sessionId: target.id, from, line };
    if (line.kind === "consensus" || line.kind === "no-consensus") {
      const room = this.roomFor(target.startedBy);
      if (line.kind === "consensus") this.noteNamed(line.names, room, target.id);
      const parsed = line.kind === "consensus" ? { kind: "consensus" as const, text: line.text, names: line.names } : line;
      return { kind: "debate", sessionId: target.id, from, line: parsed, room };
    }
    return { kind: "debate", sessionId: target.id, from, line };
  }

  /** The room for a debate whose deadline fired (the fallback is chosen from it). */
  deadlineRoom(session: Session): RoomView | undefined {
    return session.phase === "selecting" && session.selection?.stage === "debating" ? this.roomFor(session.startedBy) : undefined;
  }

  /** Departures for the sessions still choosing that might ask the occupant that left. */
  departures(who: OccupantFacts, choosing: readonly Session[]): Array<Extract<Input, { kind: "departure" }>> {
    const participant: Participant = { nick: who.nick, jid: who.realJid, identity: who.identity };
    return choosing
      .filter((s) => {
        const sel = s.selection;
        if (s.phase !== "selecting" || !sel) return false;
        if (sel.stage === "clarifying") return sel.options.some((o) => sameAgent(o.agent, who.nick));
        return sel.stage === "approving" && sel.chosen.some((a) => sameAgent(a, who.nick));
      })
      .map((s) => ({ kind: "departure", sessionId: s.id, who: participant, room: this.roomFor(s.startedBy) }));
  }

  /** Who is known to answer requests and solution requests, for the core's windows. */
  private expectations(room: RoomView): { expectedAgents: string[]; expectedProposers: string[] | null; expectedSolvers: string[] } {
    const proposers = room.candidates.filter((c) => c.proposals > 0).map((c) => c.nick);
    const solvers = room.candidates.filter(solvesOnly).map((c) => c.nick);
    // A planner that never models is not waited for in the contribution window.
    const modellers = room.candidates.filter((c) => answersRequests(c) && !solvers.includes(c.nick)).map((c) => c.nick);
    return { expectedAgents: modellers, expectedProposers: proposers.length > 0 ? proposers : null, expectedSolvers: solvers };
  }

  /** Agents named in a consensus are agents: evidence for later sessions (the core maps them too, the same way). */
  private noteNamed(names: readonly string[], room: RoomView, sessionId: string): void {
    for (const nick of mappedAgents(mapNames(names, room))) {
      const row = this.catalog.noteConsensus(nick, this.options.now());
      if (row) this.persist(row, `named in the consensus of ${sessionId}`);
    }
  }

  private logCandidates(room: RoomView): void {
    this.options.log.info(
      { candidates: room.candidates.map((c) => ({ nick: c.nick, evidence: c.evidence.length > 0 ? c.evidence : ["might be an agent"], contributions: c.contributions, proposals: c.proposals })), absent: room.absent },
      "agents that may be asked",
    );
  }

  /** Keeps the row across restarts and says in the log what it is evidence of. */
  private persist(row: EvidenceRow, what: string): void {
    if (row.firstSeen === row.lastSeen) this.options.log.info({ nick: row.nick, identity: row.identity, evidence: row.kind }, `agent evidence: ${row.nick} ${what}`);
    try {
      this.options.journal?.saveEvidence(row);
    } catch (err) {
      this.options.log.error({ err, nick: row.nick }, "agent evidence could not be saved");
    }
  }
}
