/**
 * Builders and a small driver for the session core tests. Time is a plain number of
 * milliseconds: the core has no clock or timers, so a "fake clock" is just the `now`
 * argument the driver passes to `step`.
 */
import { emptySessions, step } from "../../src/session/step.js";
import type { AnalysisOutcome, ContributionCheck, ItemCounts, ModelAnalysis, Participant, Session, SessionSettings, SolutionBody, ValidationFinding } from "../../src/session/types.js";
import type { Broadcast, Effect, Input, Sessions } from "../../src/session/step-io.js";

/** The fake clock starts here (an arbitrary, non-zero instant). */
export const T0 = 1_700_000_000_000;

export function settings(over: Partial<SessionSettings> = {}): SessionSettings {
  return {
    contributionTimeoutMs: 60_000,
    validationTimeoutMs: 10_000,
    reasoningTimeoutMs: 120_000,
    maxFixRounds: 1,
    maxTriplesPerContribution: 5_000,
    debateTimeoutMs: 60_000,
    ...over,
  };
}

export function who(nick: string, jid: string | undefined = `${nick.toLowerCase()}@agents.example`): Participant {
  return { nick, jid };
}

export const HUMAN: Participant = { nick: "dana", jid: "dana@people.example" };

export type StartInput = Extract<Input, { kind: "start" }>;

export function startInput(over: Partial<StartInput> = {}): StartInput {
  return {
    kind: "start",
    sessionId: "s1",
    problem: "Move three crates from the depot to the warehouse with one truck.",
    by: HUMAN,
    settings: settings(),
    expectedAgents: ["alice", "bob"],
    requestedAgents: null,
    ...over,
  };
}

export function counts(over: Partial<ItemCounts> = {}): ItemCounts {
  return { entities: 2, stateVariables: 0, actions: 1, constraints: 1, goals: 1, ...over };
}

export function okCheck(over: { tripleCount?: number; counts?: Partial<ItemCounts> } = {}): ContributionCheck {
  return { ok: true, tripleCount: over.tripleCount ?? 12, counts: counts(over.counts) };
}

export function failedCheck(message = "Expected entity but got literal", line: number | null = 7, column: number | null = 13): ContributionCheck {
  return { ok: false, message, line, column };
}

export function contributionInput(
  sessionId: string,
  from: Participant | string,
  opts: { check?: ContributionCheck; turtle?: string } = {},
): Extract<Input, { kind: "contribution" }> {
  const p = typeof from === "string" ? who(from) : from;
  return {
    kind: "contribution",
    sessionId,
    from: p,
    turtle: opts.turtle ?? `<#entity-${p.nick}> a <http://purl.org/stuff/mfr/Entity> .`,
    check: opts.check ?? okCheck(),
  };
}

export function solution(over: Partial<SolutionBody> = {}): SolutionBody {
  return {
    success: true,
    message: "All crates delivered.",
    plan: ["load crate1 truck depot", "drive truck depot warehouse", "unload crate1 truck warehouse"],
    bindings: ["?truck=truck1", "?crate=crate1"],
    satisfiesGoals: [{ goal: "crate1-at-warehouse", satisfied: true }],
    ...over,
  };
}

export function failedSolution(message = "No plan found.", over: Partial<SolutionBody> = {}): SolutionBody {
  return { success: false, message, ...over };
}

export function proposalInput(sessionId: string, from: Participant | string, body: SolutionBody = solution()): Extract<Input, { kind: "proposal" }> {
  return { kind: "proposal", sessionId, from: typeof from === "string" ? who(from) : from, solution: body };
}

export function finding(over: Partial<ValidationFinding> = {}): ValidationFinding {
  return {
    severity: "Violation",
    focusNode: "http://purl.org/stuff/mfr/s1/entity-alice-1",
    path: "http://purl.org/stuff/mfr/entityType",
    message: "Entity has no mfr:entityType",
    agents: ["alice"],
    ...over,
  };
}

export function conforming(over: Partial<ModelAnalysis> = {}): ModelAnalysis {
  return {
    conforms: true,
    violations: 0,
    warnings: 0,
    findings: [],
    summary: "The model is sound.",
    modelTurtle: "@prefix mfr: <http://purl.org/stuff/mfr/> .\n<#pm> a mfr:ProblemModel .",
    tripleCount: 42,
    ...over,
  };
}

export function violating(findings: ValidationFinding[] = [finding()], over: Partial<ModelAnalysis> = {}): ModelAnalysis {
  return {
    conforms: false,
    violations: findings.filter((f) => f.severity === "Violation").length,
    warnings: findings.filter((f) => f.severity === "Warning").length,
    findings,
    summary: `${findings.length} finding(s); the model does not conform.`,
    modelTurtle: "@prefix mfr: <http://purl.org/stuff/mfr/> .",
    tripleCount: 17,
    ...over,
  };
}

export function ok(analysis: ModelAnalysis): AnalysisOutcome {
  return { ok: true, analysis };
}

export function workerError(error = "worker crashed", timedOut = false): AnalysisOutcome {
  return { ok: false, error, timedOut };
}

/** Freezes an object graph so any mutation by the core throws (test modules run in strict mode). */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as Record<string, unknown>)) deepFreeze(v);
  }
  return value;
}

// ---- effect helpers -------------------------------------------------------------------

export type EffectOf<K extends Effect["kind"]> = Extract<Effect, { kind: K }>;
export type BroadcastOf<T extends Broadcast["type"]> = Extract<Broadcast, { type: T }>;

export function ofKind<K extends Effect["kind"]>(effects: readonly Effect[], kind: K): Array<EffectOf<K>> {
  return effects.filter((e): e is EffectOf<K> => e.kind === kind);
}

export function broadcasts<T extends Broadcast["type"]>(effects: readonly Effect[], type: T, sessionId?: string): Array<BroadcastOf<T>> {
  return ofKind(effects, "broadcast")
    .map((e) => e.message)
    .filter((m): m is BroadcastOf<T> => m.type === type && (sessionId === undefined || m.sessionId === sessionId));
}

/** The single broadcast of a type; fails the test if there is not exactly one. */
export function onlyBroadcast<T extends Broadcast["type"]>(effects: readonly Effect[], type: T, sessionId?: string): BroadcastOf<T> {
  const found = broadcasts(effects, type, sessionId);
  if (found.length !== 1) throw new Error(`expected exactly one ${type}, got ${found.length}`);
  return found[0] as BroadcastOf<T>;
}

export function tells(effects: readonly Effect[], nick?: string): Array<EffectOf<"tell">> {
  return ofKind(effects, "tell").filter((t) => nick === undefined || t.nick === nick);
}

export function says(effects: readonly Effect[], room?: "primary" | "log"): Array<EffectOf<"say">> {
  return ofKind(effects, "say").filter((t) => room === undefined || t.room === room);
}

/** Effects that change the world (everything but log lines). */
export function visible(effects: readonly Effect[]): Effect[] {
  return effects.filter((e) => e.kind !== "log");
}

// ---- driver -----------------------------------------------------------------------------

/**
 * Feeds inputs to `step` in order on a fake clock, keeps the state, and collects every
 * effect. Each state handed to `step` is deep-frozen first, so a core that mutated its
 * input state would throw in any test.
 */
export class Driver {
  state: Sessions = emptySessions();
  now: number;
  /** Every effect of every step, in order. */
  readonly all: Effect[] = [];
  /** The effects of the latest step. */
  last: Effect[] = [];

  constructor(now = T0) {
    this.now = now;
  }

  feed(input: Input, at: number = this.now): Effect[] {
    if (at < this.now) throw new Error("the fake clock does not run backwards");
    this.now = at;
    deepFreeze(this.state);
    const result = step(this.state, input, this.now);
    this.state = result.state;
    this.last = result.effects;
    this.all.push(...result.effects);
    return result.effects;
  }

  advance(ms: number): this {
    this.now += ms;
    return this;
  }

  session(id = "s1"): Session {
    const s = this.state.byId[id];
    if (!s) throw new Error(`no session ${id}`);
    return s;
  }

  start(over: Partial<StartInput> = {}): Effect[] {
    return this.feed(startInput(over));
  }

  contribute(sessionId: string, from: Participant | string, opts: { check?: ContributionCheck; turtle?: string } = {}): Effect[] {
    return this.feed(contributionInput(sessionId, from, opts));
  }

  propose(sessionId: string, from: Participant | string, body?: SolutionBody): Effect[] {
    return this.feed(proposalInput(sessionId, from, body));
  }

  /** The latest `analyse` effect asked for this session. */
  lastAnalyse(sessionId = "s1"): EffectOf<"analyse"> {
    const found = ofKind(this.all, "analyse").filter((a) => a.sessionId === sessionId);
    const latest = found[found.length - 1];
    if (!latest) throw new Error(`no analyse effect for ${sessionId}`);
    return latest;
  }

  /** Answers the latest `analyse` of a session with this outcome. */
  answer(sessionId: string, outcome: AnalysisOutcome, version = this.lastAnalyse(sessionId).version): Effect[] {
    return this.feed({ kind: "analysis", sessionId, version, outcome });
  }

  /** Lets the clock run to the session's current deadline and delivers it. */
  expire(sessionId = "s1"): Effect[] {
    const deadline = this.session(sessionId).deadline;
    if (!deadline) throw new Error(`session ${sessionId} has no deadline`);
    return this.feed({ kind: "deadline", sessionId, at: deadline.at }, Math.max(this.now, deadline.at));
  }

  cancel(sessionId = "s1", by: Participant = HUMAN): Effect[] {
    return this.feed({ kind: "cancel", sessionId, by });
  }

  /** Starts a session with these agents, has each contribute, and answers the merge with a sound model. */
  toReasoning(sessionId = "s1", agents: string[] = ["alice", "bob"], analysis: ModelAnalysis = conforming()): Effect[] {
    this.start({ sessionId, expectedAgents: agents });
    for (const a of agents) this.advance(1_000).contribute(sessionId, a);
    this.advance(500);
    return this.answer(sessionId, ok(analysis));
  }

  /** How many SessionComplete broadcasts a session has had over the whole run. */
  completions(sessionId = "s1"): number {
    return broadcasts(this.all, "SessionComplete", sessionId).length;
  }
}

/**
 * A text with its no-break spaces as plain spaces: durations keep a no-break space between
 * number and unit (base/text.ts NBSP), and expectations read better with plain ones. The
 * no-break spaces themselves are checked in test/session/text.test.ts and room-lines.test.ts.
 */
export function plain(text: string | undefined): string {
  return (text ?? "").replace(/\u00a0/g, " ");
}
