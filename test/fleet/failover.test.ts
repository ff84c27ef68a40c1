/**
 * Several coordinator instances on one PostgreSQL database (src/fleet/), as the real CLI over
 * a real Prosody and a real PostgreSQL (failing, never skipping, when either is missing):
 * the multi-instance counterparts of restart.test.ts's single-instance kill -9.
 *
 * - failover: three instances, four sessions held in every phase (collecting contributions,
 *   validating, reasoning, a fix round); kill -9 the owner; a standby takes over and every
 *   session completes exactly once, with every contribution counted;
 * - fencing: the owner paused (SIGSTOP) past its lease; another takes over; woken (SIGCONT),
 *   the old owner gives the room up, sends nothing more into it, and leaves it;
 * - the database goes away (its connections terminated; the server killed past the lease)
 *   and comes back: never two instances speaking at once, nothing lost;
 * - graceful hand-over (SIGTERM) well under the lease time; room units spread over
 *   instances up to MFR_MAX_ROOMS_PER_INSTANCE, and a late instance takes only free ones.
 *
 * What the room saw is checked by an independent occupant (test/support/peer.ts): no
 * protocol message twice (XEP-0359 origin-ids), one SessionComplete per session. Who said it
 * is checked on the wire: every instance reaches the server through a tap of its own
 * (bench/support/wire-tap.ts), since the room shows them all as `room/Coordinator`.
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { sentTwice } from "../support/core-scenarios.js";
import {
  CLAIMED,
  Fleet,
  GAVE_UP,
  HANDED_OVER,
  interleavedSends,
  SHIPPED_LEASE,
  SHORT_LEASE,
  sendsOutsideOwnership,
  speakerRuns,
  STANDING_BY,
  TOOK_OVER,
  type FleetInstance,
  type FleetOptions,
} from "../support/fleet.js";
import { TestPeer, type Element, type ReceivedMessage } from "../support/peer.js";
import { useTestPostgres } from "../support/postgres.js";
import { peerOptions, registerUser, uniqueRoom, useTestProsody } from "../support/prosody.js";
import { COORDINATOR_NICK, helpAnswer, json, negotiation, startSession } from "../support/room-kit.js";
import { GOOD_SOLUTION, MODELER_TURTLE, PLANNER_TURTLE, PLANNER_TURTLE_BROKEN, ScriptedAgent, type AgentScript } from "../support/scripted-agent.js";

const { server, afterThis } = useTestProsody();
const { server: postgres } = useTestPostgres();

/** Windows that close only when everyone asked has answered: what a session waits for is the test's to release. */
const WAIT_FOR_EVERYONE = "mfr:contributionTimeout 90000 ; mfr:reasoningTimeout 90000 ; mfr:quietPeriod 90000 ; mfr:enableDebate false ;";
const MODELER_COUNTS = "modeler: 3 entities, 1 action";
const PLANNER_COUNTS = "planner: 1 constraint, 1 goal";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The log line of a contribution taken in (an agent's, for a session). */
const accepted = (agent: string, sessionId: string) => (l: { msg?: unknown; agent?: unknown; sessionId?: unknown }) =>
  l.msg === "contribution accepted" && l.agent === agent && l.sessionId === sessionId;

async function until(what: string, check: () => boolean, timeoutMs = 20_000, describe?: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${describe ? `\n${describe()}` : ""}`);
    await sleep(25);
  }
}

/**
 * A room with a fleet on a fresh database, an observer and a person in it, and scripted
 * agents that have announced themselves. The instances are started one after another; the
 * first takes the room.
 */
async function fleetRoom(instances: number, scripts: Record<string, AgentScript>, more: Partial<FleetOptions> & { firstInstanceEnv?: Record<string, string> } = {}) {
  const room = uniqueRoom(server());
  const databaseUrl = await postgres().createDatabase();
  const { firstInstanceEnv, ...options } = more;
  const fleet = await Fleet.start({ server: server(), databaseUrl, room, mfrConfig: WAIT_FOR_EVERYONE, ...options }, afterThis);
  if (firstInstanceEnv) {
    const first = await fleet.add(undefined, firstInstanceEnv);
    await first.waitForLog((l) => l.msg === TOOK_OVER, 20_000);
  }
  await fleet.addMany(instances - (firstInstanceEnv ? 1 : 0));
  const { instance: owner } = await fleet.waitForOwner(room);
  const peer = async (prefix: string, nick: string) => {
    const p = await TestPeer.connect(peerOptions(server(), await registerUser(server(), prefix)));
    afterThis(() => p.stop());
    await p.joinRoom(room, nick);
    return p;
  };
  const observer = await peer("observer", "observer");
  const human = await peer("alice", "alice");
  const agents: Record<string, ScriptedAgent> = {};
  for (const [nick, script] of Object.entries(scripts)) {
    const a = await ScriptedAgent.join(server(), room, nick, script);
    afterThis(() => a.stop());
    await a.announce();
    agents[nick] = a;
  }
  await sleep(500);
  return { room, databaseUrl, fleet, owner, observer, human, agents };
}

/** The SessionComplete messages the observer saw live, by session id. */
function completions(observer: TestPeer): Map<string, ReceivedMessage[]> {
  const bySession = new Map<string, ReceivedMessage[]>();
  for (const m of observer.messages.filter((x) => !x.delayed && negotiation("SessionComplete")(x))) {
    const id = String(json(m).sessionId);
    bySession.set(id, [...(bySession.get(id) ?? []), m]);
  }
  return bySession;
}

/** Waits until the observer has seen a SessionComplete for each session, then a little longer for any second one. */
async function allComplete(observer: TestPeer, sessions: readonly string[], timeoutMs = 30_000): Promise<Map<string, ReceivedMessage[]>> {
  await until(`SessionComplete for ${sessions.join(", ")}`, () => sessions.every((s) => completions(observer).has(s)), timeoutMs);
  await sleep(1000);
  return completions(observer);
}

/** Each session completed exactly once, solved, with both agents' contributions counted. */
function expectCompletedOnceWithEveryContribution(done: Map<string, ReceivedMessage[]>, sessions: readonly string[]): void {
  for (const sessionId of sessions) {
    const seen = done.get(sessionId) ?? [];
    expect(seen, `SessionComplete of ${sessionId}`).toHaveLength(1);
    const complete = json(seen[0]!);
    expect(complete, sessionId).toMatchObject({ sessionId, status: "solved" });
    expect(String(complete.summary), sessionId).toContain(MODELER_COUNTS);
    expect(String(complete.summary), sessionId).toContain(PLANNER_COUNTS);
  }
  expect([...done.keys()].sort()).toEqual([...sessions].sort());
}

/**
 * The full JIDs the room lists for the coordinator's nick, from the observer's last presence
 * of it (a non-anonymous room lists every session of a nick that several resources share).
 * Prosody's update when one of those sessions leaves still lists it: a departure is seen on
 * the leaver's own wire, not here.
 */
function coordinatorSessions(observer: TestPeer, room: string): Set<string> {
  const sessions = new Set<string>();
  for (const p of observer.presences as Element[]) {
    if (p.attrs.from !== `${room}/${COORDINATOR_NICK}`) continue;
    const items = (p.getChild("x", "http://jabber.org/protocol/muc#user")?.getChildren("item") ?? []).map((i: Element) => String(i.attrs.jid ?? ""));
    if (p.attrs.type === "unavailable") for (const jid of items) sessions.delete(jid);
    else {
      sessions.clear();
      for (const jid of items) if (jid) sessions.add(jid);
    }
  }
  return sessions;
}

/** What the fleet's speakers were, for a failing assertion's message. */
function speakers(fleet: Fleet): string {
  return speakerRuns(fleet.protocolSent()).map((r) => `${r.id} ×${r.count}`).join(", ");
}

describe("failover: kill -9 of the owner", () => {
  it("three instances, sessions in every phase: a standby takes over, every session completes once, nothing twice, every contribution counted", async () => {
    // Sessions are told apart by the order in which the agents first hear of them.
    const KINDS = ["collecting", "reasoning", "fix round", "validating"] as const;
    const order: string[] = [];
    const kindOf = (sessionId: string) => {
      if (!order.includes(sessionId)) order.push(sessionId);
      return KINDS[order.indexOf(sessionId)];
    };
    const { room, fleet, owner, observer, human, agents } = await fleetRoom(
      3,
      {
        modeler: {
          contribution: (round, sessionId) => (kindOf(sessionId) === "validating" || round > 1 ? undefined : MODELER_TURTLE),
          solution: () => GOOD_SOLUTION,
        },
        planner: {
          contribution: (round, sessionId) => {
            const kind = kindOf(sessionId);
            if (kind === "reasoning") return PLANNER_TURTLE;
            if (kind === "fix round" && round === 1) return PLANNER_TURTLE_BROKEN;
            return undefined; // held: sent by the test
          },
          solution: (_model, sessionId) => (kindOf(sessionId) === "reasoning" ? undefined : GOOD_SOLUTION),
        },
      },
      { lease: SHORT_LEASE },
    );
    const { modeler, planner } = agents as { modeler: ScriptedAgent; planner: ScriptedAgent };

    // Collecting contributions: the modeler's is in, the planner's is not.
    const collecting = await startSession(human, room, "Deliver goods from the depot (collecting)");
    await owner.waitForLog(accepted("modeler", collecting));
    // Reasoning: the SolutionRequest is out, the modeler has proposed, the planner has not.
    const reasoning = await startSession(human, room, "Deliver goods from the depot (reasoning)");
    await owner.waitForLog((l) => l.msg === "proposal received" && l.agent === "modeler" && l.sessionId === reasoning);
    // A fix round: the planner's model broke a rule, it is asked to fix it and has not yet.
    const fixing = await startSession(human, room, "Deliver goods from the depot (fix round)");
    await human.waitForMessage((m) => negotiation("ModelContributionRequest", fixing)(m) && json(m).round === 2, 15_000);
    // Validating: the last contribution has just been taken in when the owner dies.
    const validating = await startSession(human, room, "Deliver goods from the depot (validating)");
    await modeler.contribute(validating, MODELER_TURTLE);
    await owner.waitForLog(accepted("modeler", validating));
    const from = owner.logs.length;
    await planner.contribute(validating, PLANNER_TURTLE);
    await owner.waitForLog(accepted("planner", validating), 10_000, from);
    const killedAt = await owner.kill9();

    // While nobody owns the room: the collecting session's last contribution.
    await planner.contribute(collecting, PLANNER_TURTLE);
    const next = await fleet.waitForOwner(room, { not: owner, since: killedAt });
    // After the takeover: the missing proposal and the fix.
    await planner.propose(reasoning, GOOD_SOLUTION);
    await planner.contribute(fixing, PLANNER_TURTLE);

    const sessions = [collecting, reasoning, fixing, validating];
    const done = await allComplete(observer, sessions);
    expectCompletedOnceWithEveryContribution(done, sessions);
    expect(sentTwice(observer.messages, room)).toEqual([]);
    // Nothing asked again: one request per round (the fix round's, to the planner, is heard by all), one SolutionRequest per session.
    const rounds = (a: ScriptedAgent, s: string) => a.requests.filter((r) => r.sessionId === s).map((r) => r.round);
    for (const s of sessions) {
      for (const agent of [modeler, planner]) expect(rounds(agent, s), `${agent.nick}'s rounds in ${s}`).toEqual(s === fixing ? [1, 2] : [1]);
      expect(modeler.solutionRequests.filter((r) => r.sessionId === s), s).toHaveLength(1);
    }
    expect(planner.requests.find((r) => r.sessionId === fixing && r.round === 2)?.requestedAgents).toEqual(["planner"]);
    // One takeover (of the two standbys, one), and one speaker at a time on the wire.
    const periods = fleet.ownerships(room);
    expect(periods.map((p) => p.instance.id)).toEqual([owner.id, next.instance.id]);
    expect(sendsOutsideOwnership(fleet, room, fleet.protocolSent()), speakers(fleet)).toEqual([]);
    expect(next.instance.protocolSent(killedAt).length).toBeGreaterThan(0);
  }, 120_000);
});

describe("fencing: the owner paused past its lease", () => {
  it("another instance takes over; woken, the old owner gives the room up, sends nothing more into it, and leaves it", async () => {
    const { room, fleet, owner, observer, human, agents } = await fleetRoom(
      2,
      { modeler: { contribution: () => MODELER_TURTLE, solution: () => GOOD_SOLUTION }, planner: { solution: () => GOOD_SOLUTION } },
      { lease: SHORT_LEASE },
    );
    const { planner } = agents as { planner: ScriptedAgent };
    const sessionId = await startSession(human, room, "Deliver goods from the depot");
    await owner.waitForLog(accepted("modeler", sessionId));
    const ownerJids = owner.unitJids(room);
    expect(ownerJids.length).toBeGreaterThan(0);
    await until("the owner in the room", () => ownerJids.some((j) => coordinatorSessions(observer, room).has(j)));

    owner.pause();
    const pausedAt = Date.now();
    // Said while the owner is frozen: its socket takes it in, to be read when it wakes.
    await planner.contribute(sessionId, PLANNER_TURTLE);
    const next = await fleet.waitForOwner(room, { not: owner, since: pausedAt, timeoutMs: 20_000 });
    // The new owner carries the session on before the old one wakes.
    await observer.waitForMessage((m) => negotiation("SessionComplete", sessionId)(m), 20_000);

    const resumedAt = Date.now();
    owner.resume();
    const gaveUp = await owner.waitForLog((l) => l.msg === GAVE_UP && l.room === room, 10_000);
    expect(gaveUp.why).toBe("lease ran out");
    // It leaves the room: an unavailable presence of its own to the room, on the wire.
    await until("the old owner to leave the room", () => owner.tap.sent.some((x) => x.kind === "presence" && x.type === "unavailable" && x.at >= resumedAt && x.to === `${room}/${COORDINATOR_NICK}`), 10_000);
    await owner.waitForLog((l) => l.msg === "left the room" && l.room === room && typeof l.time === "number" && l.time >= resumedAt - 50, 10_000);
    await sleep(1500);

    // Nothing from the old owner into the room once it was paused, above all after it woke.
    expect(owner.tap.sent.filter((s) => s.kind === "message" && s.at >= resumedAt)).toEqual([]);
    expect(owner.protocolSent(pausedAt + 100)).toEqual([]);
    // The room had the new owner's session beside the old one (Prosody shows a nick that several
    // resources share as one occupant, and lists every session, the one leaving included).
    expect(next.instance.unitJids(room).some((j) => coordinatorSessions(observer, room).has(j))).toBe(true);
    // Still running, as a standby.
    expect(owner.alive).toBe(true);
    expect((await owner.readyz()).role).toBe("standby");

    const done = await allComplete(observer, [sessionId]);
    expectCompletedOnceWithEveryContribution(done, [sessionId]);
    expect(sentTwice(observer.messages, room)).toEqual([]);
    expect(sendsOutsideOwnership(fleet, room, fleet.protocolSent()), speakers(fleet)).toEqual([]);
    if (process.env.MFR_PRINT_FIGURES) {
      console.log(`fencing: took over ${next.at - pausedAt} ms after the pause; the woken owner's refusals: ${owner.logs.filter((l) => l.msg === "not sending: this instance no longer owns the room").length}`);
    }
  }, 120_000);
});

describe("fencing: the owner paused inside a write", () => {
  it.each([
    ["a short lease", SHORT_LEASE],
    ["the shipped lease", SHIPPED_LEASE],
  ])("with %s: a standby takes over within the lease and one renewal period while the owner stays stopped; the session completes once; the woken owner's write never lands", async (_name, lease) => {
    // The owner stops itself between the writes and the commit of the transaction that
    // appends the session's second contribution (src/fleet/stop-inside-write.ts): its
    // transaction holds the lease row's lock when it stops.
    const { room, databaseUrl, fleet, owner, observer, human, agents } = await fleetRoom(
      2,
      { modeler: { contribution: () => MODELER_TURTLE, solution: () => GOOD_SOLUTION }, planner: { solution: () => GOOD_SOLUTION } },
      { lease, firstInstanceEnv: { MFR_TEST_STOP_INSIDE_WRITE: "append contribution:2" } },
    );
    const { planner } = agents as { planner: ScriptedAgent };
    const ownerEpoch = Number((await owner.waitForLog((l) => l.msg === TOOK_OVER && l.room === room)).epoch);
    const sessionId = await startSession(human, room, "Deliver goods from the depot");
    await owner.waitForLog(accepted("modeler", sessionId));
    await planner.contribute(sessionId, PLANNER_TURTLE);
    await until("the owner to stop itself inside the write", () => owner.stopped(), 10_000);
    const stoppedAt = Date.now();

    const next = await fleet.waitForOwner(room, { not: owner, since: stoppedAt, timeoutMs: 20_000 });
    const claim = await next.instance.waitForLog((l) => l.msg === CLAIMED && l.room === room && Number(l.time) >= stoppedAt);
    const claimedAfterMs = Number(claim.time) - stoppedAt;
    // The lock went with the database's idle limit, before the lease ran out: the claim came
    // at the standby's first renewal period after the expiry (a few seconds of slack for a
    // loaded machine; held by the pause, it would never come while the owner is stopped).
    expect(claimedAfterMs).toBeLessThan(lease.leaseMs + lease.renewMs + 3000);
    const done = await allComplete(observer, [sessionId]);
    expectCompletedOnceWithEveryContribution(done, [sessionId]);
    expect(owner.stopped()).toBe(true);

    const resumedAt = Date.now();
    owner.resume();
    await owner.waitForLog((l) => l.msg === GAVE_UP && l.room === room, 10_000);
    await owner.waitForLog((l) => l.msg === "left the room" && l.room === room && Number(l.time) >= resumedAt - 50, 10_000);
    await sleep(1000);
    expect(owner.tap.sent.filter((x) => x.kind === "message" && x.at >= resumedAt)).toEqual([]);
    expect(owner.protocolSent(stoppedAt)).toEqual([]);
    // The write it stopped in never landed: the planner's contribution is in the database
    // once, at the new owner's epoch; at the old epoch only the modeler's.
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const rows = await db.query<{ epoch: string; agent: string }>(
        "SELECT epoch::text AS epoch, input->'from'->>'nick' AS agent FROM journal_events WHERE room = $1 AND session_id = $2 AND kind = 'contribution' ORDER BY seq",
        [room, sessionId],
      );
      expect(rows.rows.map((r) => `${r.agent}@${Number(r.epoch) === ownerEpoch ? "old" : "new"}`)).toEqual(["modeler@old", "planner@new"]);
    } finally {
      await db.end();
    }
    expect(sentTwice(observer.messages, room)).toEqual([]);
    expect(sendsOutsideOwnership(fleet, room, fleet.protocolSent()), speakers(fleet)).toEqual([]);
    if (process.env.MFR_PRINT_FIGURES) {
      console.log(`paused inside a write: claimed ${claimedAfterMs} ms and took over ${next.at - stoppedAt} ms after the owner stopped (lease ${lease.leaseMs} ms, renewal ${lease.renewMs} ms)`);
    }
  }, 120_000);
});

describe("the database goes away and comes back", () => {
  const scripts = () => ({ modeler: { contribution: () => MODELER_TURTLE, solution: () => GOOD_SOLUTION }, planner: { solution: () => GOOD_SOLUTION } });

  /** Ends every connection to the database of an instance (its pool's application name names it). */
  async function terminateConnectionsOf(databaseUrl: string, instance: FleetInstance): Promise<number> {
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    try {
      const result = await admin.query<{ pid: number }>(
        "SELECT pg_terminate_backend(pid) AS ok, pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name = ANY($1::text[])",
        [[`mfr-coordinator ${instance.id}`, `mfr-coordinator ${instance.id} leases`]],
      );
      return result.rowCount ?? 0;
    } finally {
      await admin.end();
    }
  }

  it("the owner's connections terminated (pg_terminate_backend), three times: never two instances speaking at once, nothing lost", async () => {
    const { room, databaseUrl, fleet, owner: first, observer, human, agents } = await fleetRoom(2, scripts(), { lease: SHORT_LEASE });
    const { planner } = agents as { planner: ScriptedAgent };
    const sessions: string[] = [];
    for (let i = 0; i < 3; i++) sessions.push(await startSession(human, room, `Deliver goods from the depot (${i})`));
    for (const sessionId of sessions) await first.waitForLog(accepted("modeler", sessionId), 15_000);
    for (const [i, sessionId] of sessions.entries()) {
      await until("an owner of the room", () => fleet.owners(room).length === 1);
      const [owner] = fleet.owners(room) as [FleetInstance];
      const terminated = await terminateConnectionsOf(databaseUrl, owner);
      const at = Date.now();
      // Said at once, as the owner finds its connections gone.
      await planner.contribute(sessionId, PLANNER_TURTLE);
      await observer.waitForMessage((m) => negotiation("SessionComplete", sessionId)(m), 30_000);
      if (process.env.MFR_PRINT_FIGURES) {
        console.log(`terminated ${terminated} connections of ${owner.id} (round ${i + 1}); owners since: ${fleet.ownerships(room).filter((p) => p.from >= at).map((p) => p.instance.id).join(", ") || "unchanged"}`);
      }
    }
    const done = await allComplete(observer, sessions);
    expectCompletedOnceWithEveryContribution(done, sessions);
    expect(sentTwice(observer.messages, room)).toEqual([]);
    const sent = fleet.protocolSent();
    expect(interleavedSends(fleet, room, sent), speakers(fleet)).toEqual([]);
    expect(sendsOutsideOwnership(fleet, room, sent), speakers(fleet)).toEqual([]);
  }, 180_000);

  it("PostgreSQL killed for longer than the lease, then started again: owners give up, nobody speaks meanwhile, and the sessions carry on", async () => {
    const { room, fleet, owner, observer, human, agents } = await fleetRoom(2, scripts(), { lease: SHORT_LEASE });
    const { planner } = agents as { planner: ScriptedAgent };
    const first = await startSession(human, room, "Deliver goods from the depot (before)");
    const second = await startSession(human, room, "Deliver goods from the depot (during)");
    await owner.waitForLog(accepted("modeler", second), 15_000);

    await postgres().kill();
    const downAt = Date.now();
    await owner.waitForLog((l) => l.msg === GAVE_UP && l.room === room, 10_000);
    // Said while no instance can own the room.
    await planner.contribute(second, PLANNER_TURTLE);
    await sleep(SHORT_LEASE.leaseMs * 2);
    const quiet = fleet.protocolSent(downAt + SHORT_LEASE.leaseMs);
    await postgres().restart();
    const upAt = Date.now();
    const back = await fleet.waitForOwner(room, { since: downAt, timeoutMs: 30_000 });
    await planner.contribute(first, PLANNER_TURTLE);

    const done = await allComplete(observer, [first, second]);
    expectCompletedOnceWithEveryContribution(done, [first, second]);
    expect(quiet, "nobody speaks while the database is down").toEqual([]);
    expect(back.at).toBeGreaterThanOrEqual(upAt - 50);
    expect(sentTwice(observer.messages, room)).toEqual([]);
    const sent = fleet.protocolSent();
    expect(interleavedSends(fleet, room, sent), speakers(fleet)).toEqual([]);
    expect(sendsOutsideOwnership(fleet, room, sent), speakers(fleet)).toEqual([]);
  }, 180_000);
});

describe("graceful hand-over and spreading", () => {
  it("SIGTERM: the owner hands the room over and a standby takes it in well under the lease time (shipped timing)", async () => {
    const { room, fleet, owner, observer, human, agents } = await fleetRoom(2, {
      modeler: { contribution: () => MODELER_TURTLE, solution: () => GOOD_SOLUTION },
      planner: { solution: () => GOOD_SOLUTION },
    });
    const { planner } = agents as { planner: ScriptedAgent };
    const sessionId = await startSession(human, room, "Deliver goods from the depot");
    await owner.waitForLog(accepted("modeler", sessionId));

    const termAt = Date.now();
    const stopping = owner.terminate();
    const next = await fleet.waitForOwner(room, { not: owner, since: termAt, timeoutMs: SHIPPED_LEASE.leaseMs + SHIPPED_LEASE.renewMs + 5000 });
    const { code } = await stopping;
    expect(code).toBe(0);
    expect(owner.logs.some((l) => l.msg === HANDED_OVER && l.room === room)).toBe(true);
    const tookMs = next.at - termAt;
    // A released lease is claimed at the standby's next renewal period, not after the lease runs out.
    expect(tookMs).toBeLessThan(SHIPPED_LEASE.renewMs + 2000);
    expect(tookMs).toBeLessThan(SHIPPED_LEASE.leaseMs);

    await planner.contribute(sessionId, PLANNER_TURTLE);
    const done = await allComplete(observer, [sessionId]);
    expectCompletedOnceWithEveryContribution(done, [sessionId]);
    expect(sentTwice(observer.messages, room)).toEqual([]);
    expect(sendsOutsideOwnership(fleet, room, fleet.protocolSent()), speakers(fleet)).toEqual([]);
    if (process.env.MFR_PRINT_FIGURES) console.log(`hand-over: ${tookMs} ms from SIGTERM to "took over room" (lease ${SHIPPED_LEASE.leaseMs} ms)`);
  }, 120_000);

  it("three room units, at most two per instance: instances started one after another share them, and a late one takes only free rooms", async () => {
    const primary = uniqueRoom(server());
    const extra = [uniqueRoom(server()), uniqueRoom(server())];
    const all = [primary, ...extra].sort();
    const databaseUrl = await postgres().createDatabase();
    const fleet = await Fleet.start({ server: server(), databaseUrl, room: primary, rooms: extra, maxRoomsPerInstance: 2, lease: SHORT_LEASE }, afterThis);
    const owned = () => fleet.instances.flatMap((i) => i.ownedRooms());

    const a = await fleet.add("a");
    await until("a to own two rooms", () => a.ownedRooms().length === 2);
    const b = await fleet.add("b");
    await until("b to own the third", () => b.ownedRooms().length === 1);
    expect(owned().sort()).toEqual(all);
    const c = await fleet.add("c");
    await c.waitForLog((l) => l.msg === STANDING_BY, 20_000);
    await sleep(SHORT_LEASE.leaseMs + 2 * SHORT_LEASE.renewMs);
    expect(c.ownedRooms()).toEqual([]);
    expect(a.ownedRooms()).toHaveLength(2);
    expect(b.ownedRooms()).toHaveLength(1);
    expect(await c.readyz()).toMatchObject({ role: "standby", rooms: [] });
    expect(await a.readyz()).toMatchObject({ role: "owner" });
    expect(((await a.readyz()).rooms ?? []).sort()).toEqual(a.ownedRooms());
    expect((await b.readyz()).rooms).toEqual(b.ownedRooms());

    // Every room is served by its owner.
    const asker = await TestPeer.connect(peerOptions(server(), await registerUser(server(), "asker")));
    afterThis(() => asker.stop());
    for (const room of all) {
      await asker.joinRoom(room, "asker");
      await asker.sendGroupchat(room, { body: "help" });
      await asker.waitForMessage(helpAnswer(room), 10_000);
    }

    // b dies: c takes b's room, and only that one; a keeps its two.
    const bRooms = b.ownedRooms();
    const killedAt = await b.kill9();
    await fleet.waitForOwner(bRooms[0]!, { not: b, since: killedAt, timeoutMs: 20_000 });
    await sleep(2 * SHORT_LEASE.renewMs);
    expect(c.ownedRooms()).toEqual(bRooms);
    expect(a.ownedRooms()).toHaveLength(2);
    expect(owned().sort()).toEqual(all);
    for (const i of fleet.instances) expect(i.ownedRooms().length, i.id).toBeLessThanOrEqual(2);
    // No room was owned by two instances at any time.
    for (const room of all) {
      const periods = fleet.ownerships(room);
      for (const [k, p] of periods.entries()) {
        const next = periods[k + 1];
        if (next) expect(p.to, `${room}: ${p.instance.id} then ${next.instance.id}`).toBeLessThanOrEqual(next.from);
      }
    }
    await asker.sendGroupchat(bRooms[0]!, { body: "help" });
    await asker.waitForMessage(helpAnswer(bRooms[0]!), 10_000);
  }, 120_000);
});

