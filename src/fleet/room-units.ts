/**
 * The room units an instance may own, from the configuration. A unit is what one lease
 * covers: the primary room with its log room and phase rooms (`agent:roomJid` and the
 * rest), and each further room of `mfr:rooms`, a primary room of its own without log or
 * phase rooms. Each unit runs in a coordinator of its own, on a connection of its own
 * whose resource names the instance and the unit, so two instances, or two units of one
 * instance, never share a full JID.
 */
import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import type { Config } from "../config/schema.js";
import { OurRooms } from "../config/our-rooms.js";

/** One lease's worth of rooms, and the configuration its coordinator runs with. */
export interface RoomUnit {
  /** The lease key: the unit's primary room's bare JID. */
  readonly key: string;
  /** Every room of the unit (primary, log, phase rooms), bare JIDs. */
  readonly rooms: readonly string[];
  readonly config: Config;
}

/**
 * The units in claiming order (the configured primary room first). Each unit's coordinator
 * has no web server of its own (the instance serves one for all), and only the primary
 * unit's has a direct line (`xmpp:directLine`): 1:1 chat to the account's bare JID then
 * reaches exactly one instance, the primary room's owner, while every other connection of
 * the account has a negative priority.
 */
export function roomUnitsOf(config: Config, instanceId: string): RoomUnit[] {
  const base = (index: number): Config => ({
    ...config,
    // 1:1 chat to the bare JID goes to the one direct line there is: the primary unit's owner's.
    xmpp: { ...config.xmpp, resource: `${config.xmpp.resource}-${instanceId}-${index}`, directLine: index === 0 && config.xmpp.directLine },
    http: { ...config.http, port: null },
  });
  const ours = new OurRooms(config);
  const units: RoomUnit[] = [
    { key: ours.primary, rooms: [ours.primary, ...(config.logRoom ? [config.logRoom] : []), ...ours.phases], config: base(0) },
  ];
  const seen = new Set(units[0]!.rooms);
  for (const room of config.shared.rooms) {
    if (seen.has(room)) continue;
    seen.add(room);
    units.push({
      key: room,
      rooms: [room],
      config: { ...base(units.length), room, logRoom: null, phaseRooms: { construct: null, validate: null, reason: null } },
    });
  }
  return units;
}

/**
 * The configuration the unit keyed `key` (its lease key, the `room` of its rows) runs with,
 * for reading its sessions back as its coordinator rendered them (verify): a configured
 * unit's; for a unit no longer configured, a further room's of that name (no log or phase
 * rooms); for a key that is one of the primary unit's other rooms, the primary unit's.
 */
export function unitConfigOf(config: Config, key: string): Config {
  const units = roomUnitsOf({ ...config, shared: { ...config.shared, rooms: [...config.shared.rooms, key] } }, "reader");
  return (units.find((unit) => unit.key === key) ?? units[0]!).config;
}

/** A name for this instance when none is configured: the host, the process and a random part (unique across restarts). */
export function defaultInstanceId(): string {
  const host = hostname().replace(/[^A-Za-z0-9.-]/g, "-").slice(0, 40) || "host";
  return `${host}-${process.pid}-${randomBytes(3).toString("hex")}`;
}
