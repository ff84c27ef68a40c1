/**
 * The session ids of the shared database as an instance knows them (store/pg/known-session-ids.ts),
 * on a real PostgreSQL: every id at the first read, then only what was written since.
 */
import type pg from "pg";
import { describe, expect, it, vi } from "vitest";
import { KnownSessionIds } from "../../../src/store/pg/known-session-ids.js";
import { useTestPostgres } from "../../support/postgres.js";
import { useMigratedDatabases } from "./fixtures.js";

const { server } = useTestPostgres();
const { database } = useMigratedDatabases(server);

async function event(pool: pg.Pool, room: string, sessionId: string): Promise<void> {
  await pool.query("INSERT INTO journal_events (room, session_id, kind, at, live, epoch, input) VALUES ($1, $2, 'start', 0, true, 1, '{}')", [room, sessionId]);
}

describe("the database's session ids, as one instance knows them", () => {
  it("reads every id once (events and archive), then only the events written since; reads at once share one", async () => {
    const { pools } = await database(1);
    const pool = pools[0]!;
    await event(pool, "room-a", "s-1");
    await event(pool, "room-b", "s-2");
    await pool.query("INSERT INTO journal_archived (room, id, problem, status, started_at, completed_at, archived_at, session) VALUES ('room-c', 's-0', 'p', 'solved', 0, 0, 0, '{}')");
    const known = new KnownSessionIds(pool);
    await known.refresh();
    expect(["s-0", "s-1", "s-2"].every((id) => known.has(id))).toBe(true);
    expect(known.size).toBe(3);

    await event(pool, "room-a", "s-3");
    await event(pool, "room-b", "s-3");
    const query = vi.spyOn(pool, "query");
    await Promise.all([known.refresh(), known.refresh(), known.refresh()]);
    expect(known.has("s-3")).toBe(true);
    expect(known.size).toBe(4);
    // One read for the three calls, of the events after the last one read only.
    expect(query).toHaveBeenCalledTimes(1);
    expect(String(query.mock.calls[0]?.[0])).toContain("WHERE seq > $1");
    query.mockRestore();
    known.add("s-4");
    expect(known.has("s-4")).toBe(true);
  });
});
