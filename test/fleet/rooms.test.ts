/**
 * The small version of bench/rooms.ts: 20 rooms over three instances on one PostgreSQL,
 * started together, over a real Prosody (failing, never skipping, when either is missing);
 * a person and three instant agents in every room, each on one connection; sessions
 * started in random rooms; kill -9 of the instance with the most rooms. The instances share
 * the rooms at the start and the two left share the dead one's; every room it owned is taken
 * over, and nothing is lost, sent twice or missed. The figures (times, CPU, memory) are the
 * bench's; this checks what must hold.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runRooms } from "../../bench/rooms/run.js";
import { seededRandom } from "../../bench/verification/prng.js";
import { useTestPostgres } from "../support/postgres.js";
import { useTestProsody } from "../support/prosody.js";

const { server } = useTestProsody();
const { server: postgres } = useTestPostgres();

describe("many rooms over three instances", () => {
  it("20 rooms, a kill -9 of the instance with the most: every room taken over, nothing lost, twice or missed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mfr-rooms-test-"));
    try {
      const figures = await runRooms(server(), postgres(), dir, {
        rooms: 20,
        kills: 1,
        paceMs: 200,
        steadyMs: 3000,
        gapMs: [0, 0],
        agents: 3,
        triples: 50,
        busy: 0,
        lease: { ms: 3000, renewMs: 1000, marginMs: 500 },
        random: seededRandom(20),
        logLevel: "info",
        say: () => undefined,
      });
      // Started together, the instances share the rooms: a third each.
      expect(Object.values(figures.roomsPerInstance).sort()).toEqual([6, 7, 7]);
      // The dead instance's rooms are shared by the two others, every one taken over.
      const [takeover] = figures.takeovers;
      expect(takeover?.rooms).toBe(7);
      expect(takeover?.perRoomMs).toHaveLength(7);
      expect(Object.keys(takeover?.takenBy ?? {})).toHaveLength(2);
      expect(Object.values(takeover?.takenBy ?? {}).reduce((a, b) => a + b, 0)).toBe(7);
      expect(figures.completed).toBeGreaterThan(10);
      expect(figures.details).toEqual([]);
      expect({ lost: figures.lost, sentTwice: figures.sentTwice, completedTwice: figures.completedTwice, missed: figures.missed }).toEqual({ lost: 0, sentTwice: 0, completedTwice: 0, missed: 0 });
      expect(figures.contributions).toBeGreaterThanOrEqual(3 * figures.completed);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);
});
