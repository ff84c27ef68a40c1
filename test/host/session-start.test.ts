/**
 * The start rules: at most `maxLiveSessions` at once, at most `maxLiveSessionsPerPerson` of
 * one person's (the same identity under another nick counts), and the start input carries
 * only what the plan says.
 */
import { describe, expect, it } from "vitest";
import { startInputOf, startRefusal } from "../../src/host/session-start.js";
import type { Participant, Session } from "../../src/session/types.js";
import { Driver, settings, startInput } from "../support/session-fixtures.js";
import { NOW } from "./fakes.js";

const PAT: Participant = { nick: "pat", jid: undefined, identity: "occupant:PAT" };

function running(ids: string[], by: Participant): Session[] {
  const driver = new Driver(NOW);
  for (const id of ids) driver.feed(startInput({ sessionId: id, by }));
  return ids.map((id) => driver.session(id));
}

describe("startRefusal", () => {
  it("refuses a start beyond the live sessions' cap, and allows one below it", () => {
    const live = running(["a", "b"], { nick: "dana", jid: "dana@people.example" });
    expect(startRefusal(live, PAT, { maxLiveSessions: 3 })).toBeUndefined();
    expect(startRefusal(live, PAT, { maxLiveSessions: 2 })).toBe("2 sessions are already running; wait for one to finish or cancel one.");
  });

  it("counts one person's sessions by identity, whatever the nick", () => {
    const live = running(["a", "b"], PAT);
    const renamed: Participant = { ...PAT, nick: "patricia" };
    expect(startRefusal(live, renamed, { maxLiveSessions: 10, maxLiveSessionsPerPerson: 2 })).toMatch(/^you already have 2 sessions running \(a, b\)/);
    expect(startRefusal(live, { nick: "other", jid: undefined, identity: "occupant:OTHER" }, { maxLiveSessions: 10, maxLiveSessionsPerPerson: 2 })).toBeUndefined();
  });
});

describe("startInputOf", () => {
  it("sets only what the plan says", () => {
    const input = startInputOf("s1", "Move the crates", PAT, settings(), { expectedAgents: ["ada"], expectedSolvers: [], approvalRequired: [] });
    expect(input).toEqual({ kind: "start", sessionId: "s1", problem: "Move the crates", by: PAT, settings: settings(), expectedAgents: ["ada"], requestedAgents: null });
    expect(startInputOf("s1", "p", PAT, settings(), { expectedAgents: [], expectedProposers: null })).toHaveProperty("expectedProposers", null);
  });
});
