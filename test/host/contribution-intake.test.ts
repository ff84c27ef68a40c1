/**
 * Contribution intake's rules: the parts of one sender are taken in arrival order however
 * long each check takes; only the complete union reaches the core, once; parts of a session
 * that stopped taking contributions are dropped and their sender told once.
 */
import { describe, expect, it } from "vitest";
import { ContributionIntake } from "../../src/host/contribution-intake.js";
import { JournalKeeper } from "../../src/host/journal-keeper.js";
import { Outbox } from "../../src/host/outbox.js";
import { SessionQueries } from "../../src/host/queries.js";
import { SessionTable } from "../../src/host/session-table.js";
import { partsLimits } from "../../src/host/contribution-parts.js";
import type { ContributionCheck, Participant } from "../../src/session/types.js";
import type { Input } from "../../src/session/step-io.js";
import type { Element } from "../../src/xmpp/stanza.js";
import { Driver, okCheck, startInput } from "../support/session-fixtures.js";
import { NOW, RENDER, silent, turns } from "./fakes.js";

const MODELER: Participant = { nick: "modeler", jid: undefined, identity: "occupant:MODELER" };

function intakeWith() {
  const table = new SessionTable();
  const driver = new Driver(NOW);
  driver.feed(startInput({ sessionId: "s1", expectedAgents: ["modeler"] }));
  table.put(driver.session("s1"));
  const keeper = new JournalKeeper(undefined, table, silent);
  const sent: Element[] = [];
  const outbox = new Outbox({ send: async (stanza) => void sent.push(stanza) }, keeper, silent, RENDER.room);
  const queries = new SessionQueries({ table, keeper, outbox, log: silent, now: () => NOW });
  const applied: Input[] = [];
  /** Checks asked for, in order; each waits until the test settles it. */
  const checks: Array<{ turtle: string; settle: (check: ContributionCheck) => void }> = [];
  const intake = new ContributionIntake({
    table,
    limits: partsLimits(100, 224 * 1024),
    checker: { check: (_sessionId, _from, turtle) => new Promise((settle) => checks.push({ turtle, settle })) },
    queries,
    outbox,
    log: silent,
    stepper: { apply: (input) => void applied.push(input) },
  });
  return { table, intake, applied, checks, outbox, sent };
}

describe("ContributionIntake", () => {
  it("takes one sender's parts in arrival order and hands the core their union once", async () => {
    const { intake, applied, checks } = intakeWith();
    const parts = ["<#a> a <#T> .", "<#b> a <#T> .", "<#c> a <#T> ."];
    const done = parts.map((turtle, i) => intake.contributePart("s1", MODELER, { k: i + 1, n: 3 }, turtle));
    await turns();
    // Part 2 is not checked while part 1's check is still out.
    expect(checks.map((c) => c.turtle)).toEqual([parts[0]]);
    for (let i = 0; i < 3; i++) {
      checks[i]?.settle(okCheck());
      await turns();
    }
    expect(checks.map((c) => c.turtle).slice(0, 3)).toEqual(parts);
    // The union is checked as one, then handed over.
    expect(applied).toEqual([]);
    checks[3]?.settle(okCheck({ tripleCount: 3 }));
    await Promise.all(done);
    expect(applied).toHaveLength(1);
    const input = applied[0];
    if (input?.kind !== "contribution") throw new Error("not a contribution");
    expect(input.parts).toEqual({ n: 3 });
    for (const part of parts) expect(input.turtle).toContain(part.slice(0, 4));
  });

  it("drops the parts of a session whose model closed and tells the sender; a late part 1 is answered once", async () => {
    const { table, intake, applied, checks, outbox, sent } = intakeWith();
    const first = intake.contributePart("s1", MODELER, { k: 1, n: 2 }, "<#a> a <#T> .");
    await turns();
    checks[0]?.settle(okCheck());
    await first;
    const session = table.get("s1");
    if (!session) throw new Error("no session");
    table.put({ ...session, phase: "reasoning" });
    intake.dropClosedParts("s1");
    await intake.contributePart("s1", MODELER, { k: 2, n: 2 }, "<#b> a <#T> .");
    await intake.contributePart("s1", MODELER, { k: 1, n: 2 }, "<#a> a <#T> .");
    await outbox.drained();
    expect(applied).toEqual([]);
    expect(checks).toHaveLength(1);
    const told = sent.map((s) => String(s.getChildText("body")));
    expect(told).toHaveLength(2);
    expect(told[0]).toMatch(/was not used: only 1 of its 2 parts had arrived when the model was closed/);
    expect(told[1]).toMatch(/already closed and with the solvers/);
  });
});
