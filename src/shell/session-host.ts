/**
 * The one owner of session state in the running coordinator. It feeds inputs to the pure
 * core (`step`) and carries out the effects it returns: messages, deadlines, and model
 * work in the worker. Nothing else changes a session.
 */
import type { Logger } from "pino";
import { sessionListLine, sessionStatus } from "../chat/session-report.js";
import type { AnalyseAnswer, CheckAnswer, CheckRequest } from "../model/model-worker.js";
import type { AnalysisJob } from "../model/analysis.js";
import { protocolStanzas } from "../protocol/outbound.js";
import { sessionBaseIri } from "../protocol/vocab.js";
import { newSessionId } from "../session/session-id.js";
import { emptySessions, step } from "../session/step.js";
import type { AnalysisOutcome, ContributionCheck, Effect, Input, Participant, Session, SessionSettings, Sessions, SolutionBody } from "../session/types.js";
import type { Element } from "../xmpp/stanza.js";
import { DeadlineTimers } from "./deadline-timers.js";

/** The model work the host needs; ModelWorker provides it (a fake may, in tests). */
export interface ModelService {
  check(request: CheckRequest): Promise<CheckAnswer>;
  analyse(job: AnalysisJob): Promise<AnalyseAnswer>;
}

/** Where the host's messages go. */
export interface Outlet {
  /** Sends stanzas in order to the server (already sized). */
  send(stanza: Element): Promise<void>;
  /** Plain human text to the primary room or the log room (ignored when there is none). */
  say(room: "primary" | "log", text: string): Promise<void>;
}

export interface SessionHostOptions {
  room: string;
  settings: SessionSettings;
  maxStanzaBytes: number;
  maxLiveSessions: number;
  models: ModelService;
  outlet: Outlet;
  log: Logger;
  now: () => number;
  random?: () => number;
  /** Called with every input before it is applied (the durable log hooks in here). */
  record?: (input: Input) => void;
}

/** Completed sessions kept in memory for mfr-status/mfr-list. */
const COMPLETED_KEPT = 200;

export class SessionHost {
  private state: Sessions = emptySessions();
  private readonly timers: DeadlineTimers;
  /** Outgoing messages are chained so they leave in the order the core produced them. */
  private sending: Promise<void> = Promise.resolve();

  constructor(private readonly options: SessionHostOptions) {
    this.timers = new DeadlineTimers(options.now, (sessionId, at) => this.apply({ kind: "deadline", sessionId, at }));
  }

  get sessions(): Sessions {
    return this.state;
  }

  session(id: string): Session | undefined {
    return this.state.byId[id];
  }

  liveSessions(): Session[] {
    return Object.values(this.state.byId).filter((s) => s.phase !== "complete");
  }

  /** Starts a session; returns its id, or a reason it cannot start now. */
  start(problem: string, by: Participant, expectedAgents: string[], requestedAgents: string[] | null): { ok: true; sessionId: string } | { ok: false; reason: string } {
    if (this.liveSessions().length >= this.options.maxLiveSessions) {
      return { ok: false, reason: `${this.options.maxLiveSessions} sessions are already running; wait for one to finish or cancel one.` };
    }
    const sessionId = newSessionId(this.options.random ?? Math.random, (id) => id in this.state.byId);
    this.apply({ kind: "start", sessionId, problem, by, settings: this.options.settings, expectedAgents, requestedAgents });
    return { ok: true, sessionId };
  }

  cancel(sessionId: string, by: Participant): boolean {
    if (!this.state.byId[sessionId]) return false;
    this.apply({ kind: "cancel", sessionId, by });
    return true;
  }

  /** A Turtle contribution: checked off the event loop first, then handed to the core. */
  async contribute(sessionId: string, from: Participant, turtle: string): Promise<void> {
    if (!this.state.byId[sessionId]) {
      // The core answers "no such session"; no need to parse anything.
      this.apply({ kind: "contribution", sessionId, from, turtle, check: { ok: false, message: "unknown session", line: null, column: null } });
      return;
    }
    const base = sessionBaseIri(sessionId);
    const answer = await this.options.models.check({
      turtle,
      baseIri: base,
      graphIri: `${base}contribution/${encodeURIComponent(from.nick)}`,
      maxTriples: this.options.settings.maxTriplesPerContribution,
    });
    const check: ContributionCheck = !answer.ok
      ? { ok: false, message: `it could not be checked (${answer.error})`, line: null, column: null }
      : answer.check.ok
        ? { ok: true, tripleCount: answer.check.tripleCount, counts: answer.check.counts }
        : { ok: false, message: answer.check.error.message, line: answer.check.error.line, column: answer.check.error.column };
    this.apply({ kind: "contribution", sessionId, from, turtle, check });
  }

  propose(sessionId: string, from: Participant, solution: SolutionBody): void {
    this.apply({ kind: "proposal", sessionId, from, solution });
  }

  statusText(sessionId: string | undefined): string {
    const now = this.options.now();
    if (sessionId) {
      const s = this.state.byId[sessionId];
      return s ? sessionStatus(s, now) : `There is no session "${sessionId}". Say "mfr-list" for the sessions.`;
    }
    const live = this.liveSessions().sort((a, b) => b.startedAt - a.startedAt);
    if (live.length === 0) return `No session is running. ${this.listText()}`;
    if (live.length === 1) return sessionStatus(live[0] as Session, now);
    return `${live.length} sessions are running; say "mfr-status <id>" for one of them.\n${live.map((s) => sessionListLine(s, now)).join("\n")}`;
  }

  listText(limit = 10): string {
    const now = this.options.now();
    const all = Object.values(this.state.byId).sort((a, b) => b.startedAt - a.startedAt);
    if (all.length === 0) return "No sessions yet. Start one with: mfr-start <problem>";
    const lines = all.slice(0, limit).map((s) => sessionListLine(s, now));
    if (all.length > limit) lines.push(`… and ${all.length - limit} older`);
    return `Sessions, newest first:\n${lines.join("\n")}`;
  }

  /** Stops timers; pending sends finish. */
  async close(): Promise<void> {
    this.timers.cancelAll();
    await this.sending;
  }

  /** Records the input, steps the core and carries out the effects. Never throws. */
  apply(input: Input): void {
    try {
      this.options.record?.(input);
      const { state, effects } = step(this.state, input, this.options.now());
      this.state = state;
      for (const effect of effects) this.carryOut(effect);
    } catch (err) {
      this.options.log.error({ err, input: input.kind, sessionId: input.sessionId }, "failed to apply a session input");
    }
  }

  private carryOut(effect: Effect): void {
    const { log } = this.options;
    switch (effect.kind) {
      case "broadcast": {
        const built = protocolStanzas(effect.message, effect.body, {
          room: this.options.room,
          now: this.options.now(),
          maxStanzaBytes: this.options.maxStanzaBytes,
          skolemBase: sessionBaseIri(effect.message.sessionId),
        });
        if (!built.ok) {
          log.error({ sessionId: effect.message.sessionId, type: effect.message.type, err: built.error }, "protocol message not sent");
          this.queueSay("primary", `${effect.message.sessionId}: could not send the ${effect.message.type}: ${built.error}.`);
          return;
        }
        if (built.note) log.warn({ sessionId: effect.message.sessionId, type: effect.message.type, note: built.note }, "protocol message resized");
        for (const stanza of built.stanzas) this.queueSend(stanza);
        log.debug({ sessionId: effect.message.sessionId, type: effect.message.type, stanzas: built.stanzas.length }, "protocol message sent");
        return;
      }
      case "say":
        this.queueSay(effect.room, effect.text);
        return;
      case "tell":
        this.queueSay("primary", `${effect.nick}: ${effect.text}`);
        return;
      case "schedule":
        this.timers.schedule(effect.sessionId, effect.at);
        return;
      case "unschedule":
        this.timers.cancel(effect.sessionId);
        return;
      case "analyse":
        void this.runAnalysis(effect);
        return;
      case "finished":
        this.forgetOldCompleted();
        return;
      case "log":
        log[effect.level](effect.data, effect.msg);
        return;
    }
  }

  private async runAnalysis(effect: Extract<Effect, { kind: "analyse" }>): Promise<void> {
    const base = sessionBaseIri(effect.sessionId);
    const answer = await this.options.models.analyse({
      sessionId: effect.sessionId,
      problemDescription: effect.problem,
      baseIri: base,
      coordinatorGraphIri: `${base}coordinator`,
      contributions: effect.contributions.map((c) => ({ agent: c.agent, graphIri: `${base}contribution/${encodeURIComponent(c.agent)}`, turtle: c.turtle })),
      maxTriplesPerContribution: this.options.settings.maxTriplesPerContribution,
    });
    const outcome: AnalysisOutcome = answer.ok
      ? {
          ok: true,
          analysis: {
            conforms: answer.analysis.validation.conforms,
            violations: answer.analysis.validation.violations,
            warnings: answer.analysis.validation.warnings,
            findings: answer.analysis.validation.results,
            summary: answer.analysis.validation.summary,
            modelTurtle: answer.analysis.modelTurtle,
            tripleCount: answer.analysis.tripleCount,
          },
        }
      : { ok: false, error: answer.error, timedOut: /longer than/.test(answer.error) };
    this.apply({ kind: "analysis", sessionId: effect.sessionId, version: effect.version, outcome });
  }

  private queueSend(stanza: Element): void {
    this.sending = this.sending
      .then(() => this.options.outlet.send(stanza))
      .catch((err: unknown) => this.options.log.error({ err }, "send failed"));
  }

  private queueSay(room: "primary" | "log", text: string): void {
    this.sending = this.sending
      .then(() => this.options.outlet.say(room, text))
      .catch((err: unknown) => this.options.log.error({ err }, "send failed"));
  }

  /** Bounds memory until sessions are archived elsewhere: the oldest completed ones go. */
  private forgetOldCompleted(): void {
    const completed = Object.values(this.state.byId)
      .filter((s) => s.phase === "complete")
      .sort((a, b) => (a.completion?.at ?? 0) - (b.completion?.at ?? 0));
    if (completed.length <= COMPLETED_KEPT) return;
    const byId = { ...this.state.byId };
    for (const s of completed.slice(0, completed.length - COMPLETED_KEPT)) delete byId[s.id];
    this.state = { byId };
  }
}
