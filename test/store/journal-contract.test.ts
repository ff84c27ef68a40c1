import { describe, expect, it } from "vitest";
import type { SessionJournal } from "../../src/host/journal.js";
import { SessionStore } from "../../src/store/session-store.js";
import { T0, completedSession, start, tempDir } from "./helpers.js";

describe("SessionStore as the session host's journal", () => {
  it("implements the host's journal interface (checked by tsc) and behaves like one", () => {
    const store = SessionStore.open(tempDir());
    const journal: SessionJournal = store;
    journal.append("a", start("a"), T0);
    journal.archive(completedSession("a", T0));
    journal.saveArtefact("a", "validation", "{}");
    expect(journal.archivedSession("a")?.phase).toBe("complete");
    expect(journal.listArchived(5).map((s) => s.id)).toEqual(["a"]);
    expect(store.liveEvents()).toEqual([]);
    store.close();
  });
});
