/**
 * Across an absence on Prosody (docs/operating.md, "Across an absence"): a stock Prosody
 * 0.12 as people run it (muc_mam, a room history of 20, not the project's module), where an
 * agent's body-less answer said while the coordinator was away is kept nowhere, so the
 * coordinator asks again; and the tested configuration (with the module), where the room
 * gives it back and nothing is asked again. The same scenarios run on ejabberd in
 * ejabberd.test.ts (test/support/absence-scenarios.ts).
 */
import { describe, expect, it } from "vitest";
import { ABSENCE_SCENARIOS } from "../support/absence-scenarios.js";
import { CoordinatorProcess, itReplaysEveryLoggedSessionAsSent } from "../support/coordinator-process.js";
import { useTestProsody } from "../support/prosody.js";
import { uniqueRoom } from "../support/prosody.js";

/** Where the coordinator's web server listens, from its log ("web view listening"), with a trailing slash. */
async function webUrl(coordinator: CoordinatorProcess): Promise<string> {
  const line = await coordinator.waitForLog((l) => l.msg === "web view listening");
  return String(line.url).replace(/\/?$/, "/");
}

const stock = useTestProsody({ keepProtocol: false, historyLength: 20 });
const tested = useTestProsody();

describe("a stock Prosody (archive and history, no muc_keep_protocol)", () => {
  it(ABSENCE_SCENARIOS.contributionWindow.title, () => ABSENCE_SCENARIOS.contributionWindow.run(stock.server(), stock.afterThis, "not kept"), 120_000);
  it(ABSENCE_SCENARIOS.fixRound.title, () => ABSENCE_SCENARIOS.fixRound.run(stock.server(), stock.afterThis, "not kept"), 120_000);
  it(ABSENCE_SCENARIOS.solutionWindow.title, () => ABSENCE_SCENARIOS.solutionWindow.run(stock.server(), stock.afterThis, "not kept"), 120_000);

  it("says at the join that the room does not keep agents' protocol messages, names the module to load, and warns on /readyz", async () => {
    const room = uniqueRoom(stock.server());
    const coordinator = await CoordinatorProcess.start({ server: stock.server(), room, env: { MFR_HTTP_PORT: "0" } });
    stock.afterThis(() => coordinator.kill());
    await coordinator.joined(room);
    const line = await coordinator.waitForLog((l) => typeof l.msg === "string" && l.msg.startsWith("the room does not say it keeps agents' protocol messages"));
    expect(line).toMatchObject({ room, level: 40 });
    expect(String(line.load)).toContain("muc_keep_protocol");
    const readiness = (await (await fetch(`${await webUrl(coordinator)}readyz`)).json()) as { ready: boolean; warnings?: string[] };
    expect(readiness.ready).toBe(true);
    expect(readiness.warnings).toEqual([expect.stringContaining(`${room} does not keep agents' protocol messages`)]);
  });
});

describe("the tested Prosody (with muc_keep_protocol)", () => {
  it(ABSENCE_SCENARIOS.contributionWindow.title, () => ABSENCE_SCENARIOS.contributionWindow.run(tested.server(), tested.afterThis, "kept"), 120_000);

  it("says at the join that the room keeps them, and /readyz has no warning", async () => {
    const room = uniqueRoom(tested.server());
    const coordinator = await CoordinatorProcess.start({ server: tested.server(), room, env: { MFR_HTTP_PORT: "0" } });
    tested.afterThis(() => coordinator.kill());
    await coordinator.joined(room);
    await coordinator.waitForLog((l) => l.msg === "the room keeps agents' protocol messages: what they say while we are away is caught up on" && l.room === room);
    const readiness = (await (await fetch(`${await webUrl(coordinator)}readyz`)).json()) as { ready: boolean; warnings?: string[] };
    expect(readiness).toMatchObject({ ready: true });
    expect(readiness.warnings).toBeUndefined();
  });
});

itReplaysEveryLoggedSessionAsSent(4);
