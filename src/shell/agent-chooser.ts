/**
 * The shell's side of choosing agents: keeps the catalog in step with the room (presence,
 * one disco#info query per new occupant), and turns commands and debate lines into the
 * inputs of the session core, with names already resolved against the catalog.
 */
import { basename } from "node:path";
import type { Logger } from "pino";
import { agentsListing } from "../catalog/agents-listing.js";
import { loadAgentProfiles } from "../catalog/agent-profile.js";
import { AgentCatalog } from "../catalog/catalog.js";
import { debateInvitation, parseDebateLine, resolveAgentNames } from "../catalog/debate.js";
import { selectAgents } from "../catalog/selection.js";
import type { Input, Participant, Session } from "../session/types.js";

export type ChooseSpec = NonNullable<Extract<Input, { kind: "start" }>["choose"]>;

export interface ChooserOptions {
  agentsDir: string;
  /** The coordinator's own profile file, which is not a peer. */
  ownProfile: string;
  ownNick: string;
  chairNick: string;
  enableDebate: boolean;
  log: Logger;
  /** Asks an occupant for its disco#info features (null: no answer). */
  discover: (nick: string) => Promise<string[] | null>;
}

/** How a new session should begin, as the core's start input needs it. */
export interface StartPlan {
  expectedAgents: string[];
  approvalRequired: string[];
  choose?: (sessionId: string) => ChooseSpec;
  /** Said before the session starts, e.g. why there is no debate. */
  note?: string;
}

export class AgentChooser {
  readonly catalog: AgentCatalog;

  constructor(private readonly options: ChooserOptions) {
    const loaded = loadAgentProfiles(options.agentsDir, { excludeFiles: [basename(options.ownProfile)] });
    for (const problem of loaded.problems) options.log.warn({ problem }, "agent profile skipped");
    options.log.info({ agents: loaded.profiles.map((p) => p.nick), dir: options.agentsDir }, "agent catalog loaded");
    this.catalog = new AgentCatalog(loaded.profiles, { selfNick: options.ownNick });
  }

  occupantJoined(nick: string, realJid: string | undefined): void {
    this.catalog.occupantJoined(nick, realJid);
    if (!this.catalog.needsDiscovery(nick)) return;
    void this.options.discover(nick).then((features) => {
      this.catalog.featuresDiscovered(nick, features ?? []);
      if (features?.length) this.options.log.debug({ nick, lingue: features.filter((f) => f.includes("lingue")).length }, "occupant features discovered");
    });
  }

  occupantLeft(nick: string): void {
    this.catalog.occupantLeft(nick);
  }

  /** An occupant that sent protocol payloads is an agent. */
  markAgent(nick: string): void {
    this.catalog.markAgent(nick);
  }

  isAgent(nick: string | undefined): boolean {
    if (!nick) return false;
    const entry = this.catalog.find(nick);
    return entry !== undefined && entry.present;
  }

  listing(): string {
    return agentsListing(this.catalog.entries());
  }

  /** `mfr-start`: everyone present is invited; those acting in the world need approval first. */
  planStart(): StartPlan {
    const present = this.catalog.presentAgents().filter((e) => !e.profile?.isChair);
    return { expectedAgents: present.map((e) => e.nick), approvalRequired: present.filter((e) => e.profile?.requiresApproval).map((e) => e.nick) };
  }

  /**
   * `debate` / `Q:`: a Chair's debate when one is present and free, otherwise selection from
   * the catalog. Only one debate runs at a time, so a Chair's lines can never be bound to
   * the wrong session.
   */
  planDebate(problem: string, debating: readonly Session[]): StartPlan {
    const present = this.catalog.presentAgents();
    const candidates = present.filter((e) => !e.profile?.isChair);
    const approvalRequired = candidates.filter((e) => e.profile?.requiresApproval).map((e) => e.nick);
    const outcome = selectAgents(problem, present, { chairNick: this.options.chairNick });
    const chair = this.catalog.presentChair(this.options.chairNick);
    const base = { expectedAgents: [], approvalRequired };
    if (!this.options.enableDebate || !chair) {
      return { ...base, choose: () => ({ method: "catalog", outcome }), ...(this.options.enableDebate ? { note: `No Chair (${this.options.chairNick}) is in the room; choosing agents from the catalog.` } : {}) };
    }
    const busy = debating[0];
    if (busy) {
      return { ...base, choose: () => ({ method: "catalog", outcome }), note: `${chair} is already leading the debate of ${busy.id}; choosing agents from the catalog for this one.` };
    }
    const available = candidates.map((e) => e.nick);
    return { ...base, choose: (sessionId) => ({ method: "debate", chair, invitation: debateInvitation(sessionId, problem, available), fallback: outcome }) };
  }

  /** A room line as a debate input for the session being debated, or null when it is not one. */
  debateInput(from: Participant, body: string, debating: readonly Session[]): Extract<Input, { kind: "debate" }> | null {
    const line = parseDebateLine(body);
    if (!line) return null;
    // A line naming a session id goes to that session; otherwise to the one debate running.
    const target = debating.find((s) => body.includes(s.id)) ?? (debating.length === 1 ? debating[0] : undefined);
    if (!target) return null;
    const fromChair = target.selection?.chair !== null && target.selection?.chair?.toLowerCase() === from.nick.toLowerCase();
    if ((line.kind === "consensus" || line.kind === "no-consensus" || line.kind === "started") && !fromChair) return null;
    if (line.kind === "consensus") {
      const known = this.catalog.entries().filter((e) => !e.profile?.isChair).map((e) => e.nick);
      const { agents, ignored } = resolveAgentNames(line.names, known);
      return { kind: "debate", sessionId: target.id, from, line: { kind: "consensus", text: line.text, agents, ignored } };
    }
    return { kind: "debate", sessionId: target.id, from, line };
  }
}
