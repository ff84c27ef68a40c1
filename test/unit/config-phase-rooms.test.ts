/**
 * The MFR phase rooms in the profile, in the form existing MFR agents use:
 * `agent:mfrRooms [ mfr:constructRoom "…" ; mfr:validateRoom "…" ; mfr:reasonRoom "…" ]`.
 * Each is optional, a bare JID, and a room of its own; a mistake is one line naming the
 * file (or variable) and the property.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { describeConfig, loadConfig, type Environment } from "../../src/config/load.js";
import type { Config } from "../../src/config/schema.js";
import { renderContextOf } from "../../src/host/outgoing.js";
import { configErrorOf, writeConfigProfile } from "../support/config-profile.js";

const PRIMARY = "mfr@conference.example";
const LOG = "mfr-log@conference.example";
const CONSTRUCT = "construct@conference.example";
const VALIDATE = "validate@conference.example";
const REASON = "reason@conference.example";

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "mfr-phase-rooms-"));
});

/** A complete profile; `agentLines` go on the agent node, `mfrLines` inside agent:mfrConfig. */
function profile(agentLines: string, mfrLines = ""): string {
  return writeConfigProfile(dir, `agent:roomJid "${PRIMARY}" ;\n  agent:logRoomJid "${LOG}" ;\n  ${agentLines}`, mfrLines);
}

function load(path: string, env: Environment = {}): Config {
  return loadConfig({ profile: path }, { XMPP_PASSWORD: "pw", ...env }, dir);
}

/** The one-line message loading fails with. */
function failure(path: string, env: Environment = {}): string {
  return configErrorOf(() => load(path, env));
}

const rooms = (construct: string, validate: string, reason: string) =>
  `agent:mfrRooms [ mfr:constructRoom "${construct}" ; mfr:validateRoom "${validate}" ; mfr:reasonRoom "${reason}" ] ;`;

describe("phase rooms in the profile", () => {
  it("reads all three, bare and lower-cased for rendering, and check-config shows them", () => {
    const config = load(profile(rooms(CONSTRUCT, VALIDATE, "Reason@Conference.Example")));
    expect(config.phaseRooms).toEqual({ construct: CONSTRUCT, validate: VALIDATE, reason: "Reason@Conference.Example" });
    expect(describeConfig(config).phaseRooms).toEqual(config.phaseRooms);
    expect(renderContextOf(config).phaseRooms).toEqual({ construct: CONSTRUCT, validate: VALIDATE, reason: REASON });
  });

  it("each is optional; without agent:mfrRooms there are none", () => {
    expect(load(profile(`agent:mfrRooms [ mfr:reasonRoom "${REASON}" ] ;`)).phaseRooms).toEqual({ construct: null, validate: null, reason: REASON });
    const none = load(profile(""));
    expect(none.phaseRooms).toEqual({ construct: null, validate: null, reason: null });
    expect(renderContextOf(none).phaseRooms).toEqual({});
  });

  it("two phases may share a room", () => {
    expect(load(profile(rooms(CONSTRUCT, REASON, REASON))).phaseRooms).toEqual({ construct: CONSTRUCT, validate: REASON, reason: REASON });
  });

  it("a room that is not a bare JID names the file and the property", () => {
    const path = profile(rooms(CONSTRUCT, VALIDATE, "reason"));
    expect(failure(path)).toBe(`${path}: mfr:reasonRoom: expected a bare JID such as room@conference.example.org, got "reason"`);
    const full = profile(rooms(`${CONSTRUCT}/nick`, VALIDATE, REASON));
    expect(failure(full)).toContain(`${full}: mfr:constructRoom: expected a bare JID`);
  });

  it("a phase room may be neither the primary room nor the log room, whatever the case", () => {
    const primary = profile(rooms("MFR@conference.example", VALIDATE, REASON));
    expect(failure(primary)).toBe(`${primary}: mfr:constructRoom: expected a room of its own, not the primary room (agent:roomJid), got "MFR@conference.example"`);
    const log = profile(rooms(CONSTRUCT, LOG, REASON));
    expect(failure(log)).toBe(`${log}: mfr:validateRoom: expected a room of its own, not the log room (agent:logRoomJid), got "${LOG}"`);
  });

  it("one value per phase", () => {
    const path = profile(`agent:mfrRooms [ mfr:constructRoom "${CONSTRUCT}", "other@conference.example" ] ;`);
    expect(failure(path)).toBe(`${path}: mfr:constructRoom: expected one value, got 2 values`);
  });

  it("a typo is reported with the property meant, inside agent:mfrRooms and of agent:mfrRooms itself", () => {
    const inside = profile(`agent:mfrRooms [ mfr:constructRom "${CONSTRUCT}" ] ;`);
    expect(failure(inside)).toBe(`${inside}: mfr:constructRom: is not a known property; did you mean mfr:constructRoom?`);
    const outside = profile(`agent:mfrRoom [ mfr:constructRoom "${CONSTRUCT}" ] ;`);
    expect(failure(outside)).toBe(`${outside}: agent:mfrRoom: is not a known property; did you mean agent:mfrRooms?`);
  });

  it("a phase room outside agent:mfrRooms is not silently ignored", () => {
    const inConfig = profile("", `mfr:reasonRoom "${REASON}" ;`);
    expect(failure(inConfig)).toBe(`${inConfig}: mfr:reasonRoom: belongs inside agent:mfrRooms [ … ] on the agent node`);
    const onAgent = profile(`mfr:constructRoom "${CONSTRUCT}" ;`);
    expect(failure(onAgent)).toBe(`${onAgent}: mfr:constructRoom: belongs inside agent:mfrRooms [ … ] on the agent node`);
  });

  it("agent:mfrRooms must be a node, not a JID", () => {
    const path = profile(`agent:mfrRooms "${CONSTRUCT}" ;`);
    expect(failure(path)).toContain(`${path}: agent:mfrRooms: expected a node such as [ mfr:constructRoom`);
  });

  it("MFR_CONSTRUCT_ROOM, MFR_VALIDATE_ROOM and MFR_REASON_ROOM override the profile, and are named when wrong", () => {
    const path = profile(rooms(CONSTRUCT, VALIDATE, REASON));
    const config = load(path, { MFR_CONSTRUCT_ROOM: "c2@conference.example", MFR_VALIDATE_ROOM: "v2@conference.example", MFR_REASON_ROOM: "r2@conference.example" });
    expect(config.phaseRooms).toEqual({ construct: "c2@conference.example", validate: "v2@conference.example", reason: "r2@conference.example" });
    // Set without a profile entry, too.
    expect(load(profile(""), { MFR_REASON_ROOM: REASON }).phaseRooms.reason).toBe(REASON);
    expect(failure(path, { MFR_REASON_ROOM: "not a jid" })).toBe('MFR_REASON_ROOM: reasonRoom: expected a bare JID such as room@conference.example.org, got "not a jid"');
    expect(failure(path, { MFR_VALIDATE_ROOM: PRIMARY })).toBe(`MFR_VALIDATE_ROOM: validateRoom: expected a room of its own, not the primary room (agent:roomJid), got "${PRIMARY}"`);
  });
});
