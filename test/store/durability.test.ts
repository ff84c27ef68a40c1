import { describe, expect, it } from "vitest";
import { SessionStore } from "../../src/store/session-store.js";
import { replayEvents } from "../../src/store/replay.js";
import { Driver } from "../support/session-fixtures.js";
import { T0, cancel, completedSession, contribution, killHard, proposal, spawnStoreChild, start, tempDir, waitForLine } from "./helpers.js";

describe("durability", () => {
  it("keeps events, archive and artefacts across close and reopen", () => {
    const dir = tempDir();
    const first = SessionStore.open(dir);
    first.append("a", start("a"), T0);
    first.append("b", start("b"), T0 + 1);
    first.append("b", cancel("b"), T0 + 2);
    first.archive(completedSession("b", T0 + 1, T0 + 2));
    first.saveArtefact("a", "validation", '{"conforms":true}');
    const liveBefore = first.liveEvents();
    first.close();

    const second = SessionStore.open(dir);
    expect(second.liveEvents()).toEqual(liveBefore);
    expect(second.eventsOf("b")).toHaveLength(2);
    expect(second.archivedRecord("b")?.status).toBe("cancelled");
    expect(second.artefacts("a").map((a) => [a.kind, a.content])).toEqual([["validation", '{"conforms":true}']]);
    // Sequence numbers carry on after the restart instead of starting over.
    expect(second.append("a", cancel("a"), T0 + 3)).toBeGreaterThan(Math.max(...liveBefore.map((e) => e.seq)));
    second.close();
  });

  it("rebuilds the same live sessions through the core as the running coordinator had", () => {
    const dir = tempDir();
    const store = SessionStore.open(dir);
    const driver = new Driver(T0);
    const inputs = [start("a"), start("b"), contribution("a", "alice"), contribution("b", "bob"), cancel("b"), proposal("a", "alice")];
    inputs.forEach((input, i) => {
      store.append(input.sessionId, input, T0 + i * 1000);
      driver.feed(input, T0 + i * 1000);
    });
    store.close();

    const reopened = SessionStore.open(dir);
    const rebuilt = replayEvents(reopened.liveEvents());
    expect(Object.keys(rebuilt.byId).sort()).toEqual(["a", "b"]);
    expect(JSON.parse(JSON.stringify(rebuilt))).toEqual(JSON.parse(JSON.stringify(driver.state)));
    reopened.close();
  });

  it("loses nothing that append returned when the writing process is killed with SIGKILL", async () => {
    const dir = tempDir();
    const child = spawnStoreChild(["append", dir, "s1"]);
    const promised: number[] = [];
    let pending = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) if (/^\d+$/.test(line)) promised.push(Number(line));
    });
    // Let it write a good number, then kill it mid-stream.
    await waitForLine(child, /^\d+$/);
    while (promised.length < 2000) await new Promise((r) => setTimeout(r, 10));
    await killHard(child);
    expect(child.signalCode).toBe("SIGKILL");

    const store = SessionStore.open(dir);
    const stored = store.eventsOf("s1");
    const storedSeqs = new Set(stored.map((e) => e.seq));
    const lost = promised.filter((seq) => !storedSeqs.has(seq));
    expect(lost).toEqual([]);
    expect(stored.length).toBeGreaterThanOrEqual(promised.length);
    // And what is there is intact: the n-th input is the one the child built for n.
    stored.forEach((e, n) => expect(e.input).toEqual({ kind: "cancel", sessionId: "s1", by: { nick: `n${n}` } }));
    store.close();
  });
});
