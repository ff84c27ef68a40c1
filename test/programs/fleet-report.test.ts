/** The fleet listing as an operator reads it: by owner, the database's clock, no owner last. */
import { describe, expect, it } from "vitest";
import { fleetReport } from "../../src/programs/fleet-report.js";

const AT = new Date("2026-11-29T10:00:00Z");
const ago = (ms: number) => new Date(AT.getTime() - ms);
const ahead = (ms: number) => new Date(AT.getTime() + ms);

describe("fleetReport", () => {
  it("groups the live leases by instance and names the rooms whose lease ran out, with their last owner", () => {
    const lines = fleetReport({
      at: AT,
      leases: [
        { room: "a@muc", owner: "i1", epoch: 3, claimedAt: ago(125_000), expiresAt: ahead(4_200) },
        { room: "b@muc", owner: "i1", epoch: 1, claimedAt: ago(3_600_000), expiresAt: ahead(5_000) },
        { room: "c@muc", owner: "i2", epoch: 7, claimedAt: ago(2_000), expiresAt: ahead(6_000) },
        { room: "d@muc", owner: "i2", epoch: 2, claimedAt: ago(60_000), expiresAt: ago(30_000) },
      ],
    });
    expect(lines).toEqual([
      "fleet: 4 rooms, 2 instances holding a lease (database time 10:00:00 UTC)",
      "instance i1: 2 rooms",
      "  a@muc  epoch 3, owned for 2\u00a0min\u00a05\u00a0s (taken over at 09:57:55), lease runs out in 4.2\u00a0s",
      "  b@muc  epoch 1, owned for 1\u00a0h (taken over at 09:00:00), lease runs out in 5\u00a0s",
      "instance i2: 1 room",
      "  c@muc  epoch 7, owned for 2\u00a0s (taken over at 09:59:58), lease runs out in 6\u00a0s",
      "no owner now: 1 room",
      "  d@muc  epoch 2, last owner i2, lease ran out 30\u00a0s ago",
    ]);
  });

  it("lists the instances standing by (claiming, no lease) after the owners", () => {
    const lines = fleetReport({
      at: AT,
      leases: [{ room: "a@muc", owner: "i1", epoch: 1, claimedAt: ago(1_000), expiresAt: ahead(5_000) }],
      claiming: ["i1", "i2", "i3"],
    });
    expect(lines.slice(2)).toEqual(["  a@muc  epoch 1, owned for 1\u00a0s (taken over at 09:59:59), lease runs out in 5\u00a0s", "standing by (claiming free rooms, no lease): i2, i3"]);
  });

  it("says so when no room has a lease", () => {
    expect(fleetReport({ at: AT, leases: [] })).toEqual(["fleet: 0 rooms, 0 instances holding a lease (database time 10:00:00 UTC)"]);
  });
});
