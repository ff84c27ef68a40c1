/**
 * `mfr-coordinator fleet`: the instances on a shared database as an operator reads them: the
 * rooms each owns, how long it has owned each (since its last takeover) and how long its lease
 * has left, the instances standing by, and the rooms nobody owns now. Read from the lease
 * rows and the claimers' rows, by the database's clock, so it runs anywhere the database is
 * reachable, beside the instances.
 */
import { clockTime } from "../base/clock-time.js";
import { plural, seconds } from "../base/text.js";
import type { LeaseListing } from "../store/pg/room-lease.js";

/** The listing's lines: one heading, then a block per instance and one for the rooms without an owner. */
export function fleetReport(listing: LeaseListing): string[] {
  const now = listing.at.getTime();
  const live = listing.leases.filter((lease) => lease.expiresAt.getTime() > now);
  const free = listing.leases.filter((lease) => lease.expiresAt.getTime() <= now);
  const owners = [...new Set(live.map((lease) => lease.owner))];
  const lines = [`fleet: ${plural(listing.leases.length, "room")}, ${plural(owners.length, "instance")} holding a lease (database time ${clockTime(now, now)} UTC)`];
  for (const owner of owners) {
    const held = live.filter((lease) => lease.owner === owner);
    lines.push(`instance ${owner}: ${plural(held.length, "room")}`);
    for (const lease of held) {
      const since = lease.claimedAt.getTime();
      lines.push(`  ${lease.room}  epoch ${lease.epoch}, owned for ${seconds(now - since)} (taken over at ${clockTime(since, now)}), lease runs out in ${seconds(lease.expiresAt.getTime() - now)}`);
    }
  }
  // Standbys hold no lease: they show as instances that are claiming free rooms.
  const standing = (listing.claiming ?? []).filter((instance) => !owners.includes(instance));
  if (standing.length > 0) lines.push(`standing by (claiming free rooms, no lease): ${standing.join(", ")}`);
  if (free.length > 0) {
    lines.push(`no owner now: ${plural(free.length, "room")}`);
    for (const lease of free) lines.push(`  ${lease.room}  epoch ${lease.epoch}, last owner ${lease.owner}, lease ran out ${seconds(now - lease.expiresAt.getTime())} ago`);
  }
  return lines;
}
