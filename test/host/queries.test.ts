/**
 * The queries' rules: a session in memory is answered from memory, one that left memory from
 * the archive; a session is listed once; input for an archived session gets one private
 * answer, worded from the archive, and is not a step.
 */
import { describe, expect, it } from "vitest";
import { JournalKeeper } from "../../src/host/journal-keeper.js";
import { Outbox } from "../../src/host/outbox.js";
import { SessionQueries } from "../../src/host/queries.js";
import { SessionTable } from "../../src/host/session-table.js";
import type { Element } from "../../src/xmpp/stanza.js";
import { completedSession } from "../store/helpers.js";
import { Driver, startInput } from "../support/session-fixtures.js";
import { ArrayJournal, NOW, RENDER, silent } from "./fakes.js";

function queriesWith(journal: ArrayJournal | undefined) {
  const table = new SessionTable();
  const keeper = new JournalKeeper(journal, table, silent);
  const sent: Element[] = [];
  const outbox = new Outbox({ send: async (stanza) => void sent.push(stanza) }, keeper, silent, RENDER.room);
  const queries = new SessionQueries({ table, keeper, outbox, log: silent, now: () => NOW + 60_000 });
  return { table, queries, outbox, sent };
}

/** A live session `id`, started at `at`. */
function live(id: string, at = NOW) {
  const driver = new Driver(at);
  driver.feed(startInput({ sessionId: id, problem: `Problem of ${id}` }));
  return driver.session(id);
}

describe("SessionQueries", () => {
  it("answers the status of an archived session from the archive", () => {
    const journal = new ArrayJournal();
    journal.archive(completedSession("old-one", NOW - 3_600_000));
    const { queries } = queriesWith(journal);
    expect(queries.statusText("old-one")).toContain("old-one");
    expect(queries.statusText("old-one")).not.toContain("There is no session");
    expect(queries.statusText("never")).toBe(`There is no session "never". Say "mfr-list" for the sessions.`);
  });

  it("lists sessions in memory and archived newest first, each once", () => {
    const journal = new ArrayJournal();
    journal.archive(completedSession("archived", NOW - 3_600_000));
    // Archived while a copy is still in memory: listed from memory only.
    journal.archive(completedSession("both", NOW - 1_800_000));
    const { table, queries } = queriesWith(journal);
    table.put(completedSession("both", NOW - 1_800_000));
    table.put(live("running"));
    const lines = queries.listText().split("\n");
    expect(lines[0]).toBe("Sessions, newest first:");
    expect(lines.slice(1).map((l) => ["running", "both", "archived"].find((id) => l.includes(id)))).toEqual(["running", "both", "archived"]);
  });

  it("without a journal lists what is in memory, and says so when there is nothing", () => {
    const { queries } = queriesWith(undefined);
    expect(queries.listText()).toBe("No sessions yet. Start one with: mfr-start <problem>");
    expect(queries.statusText(undefined)).toBe("No session is running. No sessions yet. Start one with: mfr-start <problem>");
  });

  it("finds the newest session waiting for this person to choose agents; another person's only with standing", () => {
    const { table, queries } = queriesWith(undefined);
    const unclear = { method: "catalog" as const, outcome: { kind: "unclear" as const, options: [{ number: 1, agent: "ada", reason: "models" }], why: "Several fit." } };
    const dana = { nick: "dana", jid: "dana@people.example" };
    const pat = { nick: "pat", jid: "pat@people.example" };
    const driver = new Driver(NOW);
    driver.feed(startInput({ sessionId: "dana-old", by: dana, choose: unclear }));
    driver.feed(startInput({ sessionId: "dana-new", by: dana, choose: unclear }), NOW + 1_000);
    driver.feed(startInput({ sessionId: "pat", by: pat, choose: unclear }), NOW + 2_000);
    for (const id of ["dana-old", "dana-new", "pat"]) table.put(driver.session(id));
    expect(queries.choosing().map((s) => s.id).sort()).toEqual(["dana-new", "dana-old", "pat"]);
    expect(queries.clarificationFor(dana)?.id).toBe("dana-new");
    expect(queries.clarificationFor({ nick: "eve", jid: "eve@people.example" })).toBeUndefined();
    expect(queries.clarificationFor({ nick: "mod", jid: "mod@people.example", standing: "moderator" })?.id).toBe("pat");
  });

  it("answers input for an archived session once, privately, worded from the archive; not a session in memory", async () => {
    const journal = new ArrayJournal();
    journal.archive(completedSession("done", NOW - 3_600_000));
    const { table, queries, outbox, sent } = queriesWith(journal);
    table.put(live("running"));
    const ada = { nick: "ada", jid: undefined };
    expect(queries.answeredFromArchive("running", ada, () => "unused")).toBe(false);
    expect(queries.answeredFromArchive("unknown", ada, () => "unused")).toBe(false);
    expect(queries.answeredFromArchive("done", ada, (s) => `${s.id} is over`)).toBe(true);
    await outbox.drained();
    expect(sent.map((s) => [s.attrs.to, s.getChildText("body")])).toEqual([[`${RENDER.room}/ada`, "done is over"]]);
  });
});
