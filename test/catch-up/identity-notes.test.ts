/**
 * catch-up/identity-notes.ts: how each room tells occupants apart is said in the log once, and
 * again only when it changes (nicks only as a warning); a change in the primary room, and only
 * there, tells the live sessions whose basis differs; a protocol room with occupant ids but no
 * real JIDs is warned about when phase rooms are in use.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Session } from "../../src/session/types.js";
import type { Input } from "../../src/session/step-io.js";
import { IdentityNotes } from "../../src/catch-up/identity-notes.js";
import { OurRooms } from "../../src/config/our-rooms.js";
import type { RoomIdentities } from "../../src/xmpp/rooms.js";
import { keptLog, type LogLine } from "../inbound/helpers.js";

const PRIMARY = "room@conference.localhost";
const PHASE = "construct@conference.localhost";
const LOG = "log@conference.localhost";
const WARN = 40;
const INFO = 30;

function notes(phaseRooms: { construct: string | null; validate: string | null; reason: string | null } = { construct: null, validate: null, reason: null }, live: Session[] = []) {
  const { log, lines } = keptLog();
  const applied: Input[] = [];
  const n = new IdentityNotes({ rooms: new OurRooms({ room: PRIMARY, phaseRooms }), log, liveSessions: () => live, apply: (i) => void applied.push(i) });
  return { n, lines, applied };
}
const said = (lines: LogLine[]) => lines.filter((l) => l.msg.startsWith("room identities: "));
const session = (id: string, identityBasis: Session["identityBasis"]) => ({ id, identityBasis, contributions: {}, proposals: [] }) as unknown as Session;
const ids = (occupantIds: boolean, realJids: boolean): RoomIdentities => ({ occupantIds, realJids });

describe("said once per room, again only when it changes", () => {
  it("a room's identities are logged at each change and at no repeat, room by room (property)", () => {
    const room = fc.constantFrom(PRIMARY, PHASE, LOG);
    fc.assert(
      fc.property(fc.array(fc.tuple(room, fc.boolean(), fc.boolean()), { maxLength: 20 }), (joins) => {
        const { n, lines } = notes();
        const last = new Map<string, string>();
        const expected: string[] = [];
        for (const [r, o, j] of joins) {
          n.note(r, ids(o, j));
          const key = `${o}/${j}`;
          if (last.get(r) !== key) expected.push(r);
          last.set(r, key);
        }
        expect(said(lines).map((l) => l.room)).toEqual(expected);
      }),
    );
  });

  it("real JIDs or occupant ids are noted as info, nicks only as a warning, with the basis named", () => {
    const { n, lines } = notes();
    n.note(PRIMARY, ids(true, true));
    n.note(PRIMARY, ids(true, false));
    n.note(PRIMARY, ids(false, false));
    expect(said(lines).map((l) => [l.level, l.basis])).toEqual([
      [INFO, "real JIDs"],
      [INFO, "occupant ids (XEP-0421)"],
      [WARN, "nicks only"],
    ]);
  });
});

describe("a change of basis in the primary room, and only there, tells the live sessions", () => {
  it("each live session whose basis differs gets an identity-basis input; none for another room or a repeat", () => {
    const { n, applied } = notes({ construct: PHASE, validate: null, reason: null }, [session("s1", "jid"), session("s2", "occupant"), session("s3", undefined)]);
    n.note(PHASE, ids(true, false));
    expect(applied).toEqual([]);
    n.note(PRIMARY, ids(true, false));
    expect(applied).toEqual([{ kind: "identity-basis", sessionId: "s1", basis: "occupant", room: PRIMARY }]);
    n.note(PRIMARY, ids(true, false));
    expect(applied).toHaveLength(1);
  });
});

describe("occupant ids without real JIDs in a protocol room, with phase rooms in use, are warned about", () => {
  const warned = (lines: LogLine[]) => lines.filter((l) => l.level === WARN && l.msg.startsWith("this room gives occupant ids but no real JIDs"));

  it("warns for the primary and phase rooms, not the log room, and not without phase rooms or with real JIDs", () => {
    const withPhases = notes({ construct: PHASE, validate: null, reason: null });
    withPhases.n.note(PRIMARY, ids(true, false));
    withPhases.n.note(PHASE, ids(true, false));
    withPhases.n.note(LOG, ids(true, false));
    expect(warned(withPhases.lines).map((l) => l.room)).toEqual([PRIMARY, PHASE]);

    const real = notes({ construct: PHASE, validate: null, reason: null });
    real.n.note(PHASE, ids(true, true));
    expect(warned(real.lines)).toEqual([]);

    const noPhases = notes();
    noPhases.n.note(PRIMARY, ids(true, false));
    expect(warned(noPhases.lines)).toEqual([]);
  });
});
