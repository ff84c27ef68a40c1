/**
 * What the room gave back while the coordinator was away counts at the instant the room
 * stamped it: a window still open then takes it, one already closed does not, however late
 * the coordinator reads it; and replaying the log decides the same (catch-up/catch-up.ts,
 * DeadlineTimers.hold). A property over random stamps around the window's deadline.
 */
import fc from "fast-check";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ModelService, SessionStep } from "../../src/host/session-host.js";
import { heardOf } from "../../src/host/heard.js";
import { replayWithSends } from "../../src/host/sent-check.js";
import { SessionStore } from "../../src/store/session-store.js";
import type { Participant } from "../../src/session/types.js";
import { xml } from "../../src/xmpp/stanza.js";
import { testHost } from "../support/test-host.js";

const ROOM = "room@conference.localhost";
const WINDOW_MS = 10_000;
const COUNTS = { entities: 1, stateVariables: 0, actions: 0, constraints: 0, goals: 0, triples: 1 };
/** Every contribution checks out; validation never ends (the test looks at the window only). */
const MODELS: ModelService = {
  check: async () => ({ ok: true as const, check: { ok: true as const, tripleCount: 1, counts: COUNTS } }),
  analyse: () => new Promise(() => undefined),
  verify: () => Promise.reject(new Error("unused")),
};
const AGENTS = ["a1", "a2", "a3", "a4"];
const agent = (nick: string): Participant => ({ nick, jid: `${nick}@localhost`, identity: `jid:${nick}@localhost` });

const dirs: string[] = [];
beforeEach(() => {
  // setImmediate stays real: the host's sends take a turn of the event loop between stanzas.
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
  vi.setSystemTime(1_000_000);
});
afterEach(() => {
  vi.useRealTimers();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("answers caught up from the room count when the room stamped them", () => {
  it("a window still open at the stamp takes the answer; a closed one does not; replay decides the same", async () => {
    await fc.assert(
      fc.asyncProperty(
        // Offsets from the window's start at which agents answered while the coordinator was away.
        fc.uniqueArray(fc.integer({ min: 1, max: 2 * WINDOW_MS }), { minLength: 1, maxLength: AGENTS.length }),
        async (offsets) => {
          const dir = mkdtempSync(join(tmpdir(), "mfr-catch-up-"));
          dirs.push(dir);
          const store = SessionStore.open(dir, { now: () => Date.now() });
          try {
            const host = testHost({ models: MODELS, journal: store, now: () => Date.now(), settings: { contributionTimeoutMs: WINDOW_MS, validationTimeoutMs: 5_000, reasoningTimeoutMs: 60_000, maxFixRounds: 1, maxTriplesPerContribution: 100, debateTimeoutMs: 60_000 } });
            const steps: SessionStep[] = [];
            host.onStep((s) => steps.push(s));
            const startedAt = Date.now();
            // Every agent is expected, so only the timeout closes the window early enough to matter.
            const started = host.start("Plan", agent("alice"), { expectedAgents: [...AGENTS, "silent"] });
            if (!started.ok) throw new Error(started.reason);
            // The coordinator goes away; it comes back after the window's end, and reads the room.
            host.holdDeadlines();
            await vi.advanceTimersByTimeAsync(3 * WINDOW_MS);
            const answers = offsets.map((o, i) => ({ nick: AGENTS[i] as string, stamp: startedAt + o })).sort((x, y) => x.stamp - y.stamp);
            for (const { nick, stamp } of answers) {
              host.fireDeadlinesDueBy(stamp);
              const stanza = xml("message", { from: `${ROOM}/${nick}`, type: "groupchat", id: nick }, xml("body", {}, "contribution"));
              await host.contribute(started.sessionId, agent(nick), `<#${nick}> a <#Entity> .`, heardOf(ROOM, nick, stanza, stamp, true));
            }
            host.releaseDeadlines();
            await vi.advanceTimersByTimeAsync(0);

            const closedAt = steps.findIndex((s) => s.input.kind === "deadline");
            expect(closedAt).toBeGreaterThan(0);
            const round1 = steps.slice(0, closedAt).filter((s) => s.input.kind === "contribution");
            const inTime = answers.filter((a) => a.stamp < startedAt + WINDOW_MS).map((a) => a.nick);
            // In the window: exactly those stamped before its end, each at its stamp.
            expect(round1.map((s) => (s.input.kind === "contribution" ? s.input.from.nick : ""))).toEqual(inTime);
            for (const s of round1) expect(s.at).toBe(answers.find((a) => s.input.kind === "contribution" && a.nick === s.input.from.nick)?.stamp);
            // Replay of the log reaches the same session.
            const live = host.session(started.sessionId) ?? store.archivedSession(started.sessionId);
            const replayed = replayWithSends(store.eventsOf(started.sessionId), { room: ROOM, logRoom: undefined, maxStanzaBytes: 64 * 1024 }).state.byId[started.sessionId];
            expect(JSON.parse(JSON.stringify(replayed))).toEqual(JSON.parse(JSON.stringify(live)));
            // And each caught-up message that became an input is known to the store with it: given back again, it is skipped.
            for (const { nick, stamp } of answers.filter((a) => inTime.includes(a.nick))) {
              const again = heardOf(ROOM, nick, xml("message", { from: `${ROOM}/${nick}`, type: "groupchat", id: nick }, xml("body", {}, "contribution")), stamp, true);
              expect(store.heardBefore(ROOM, again.keys)).toBe(true);
            }
            await host.close();
          } finally {
            store.close();
          }
        },
      ),
      { numRuns: 40 },
    );
  }, 60_000);
});
