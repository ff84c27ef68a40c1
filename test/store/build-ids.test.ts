/**
 * Which build wrote each record: the SQLite store writes its build id with every input it logs
 * and every stanza it records as sent, with the stanza's decisive digest, and reads them back;
 * a row written before (schema v7 and older) has neither. The migration from v7 is tested on
 * real stores of earlier builds in store-fixtures.test.ts.
 */
import Database from "better-sqlite3";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildIdOf, runningBuildId } from "../../src/base/build-info.js";
import { DATABASE_FILE, SessionStore } from "../../src/store/session-store.js";
import { T0, contribution, start, tempDir } from "./helpers.js";

describe("build ids in the SQLite store", () => {
  it("are written with each input and sent record, with the sent stanza's decisive digest", () => {
    const dir = tempDir();
    const store = SessionStore.open(dir, { build: "0.1.0+aaaaaaa" });
    const seq = store.append("s1", start("s1"), T0);
    store.recordSent({ sessionId: "s1", eventSeq: seq, position: 0, at: T0, digest: "whole", decisive: "d1:decides", what: "ModelContributionRequest" });
    // A stanza of the restored tail recorded for the build that rendered it keeps its build.
    store.recordSent({ sessionId: "s1", eventSeq: seq, position: 1, at: T0, digest: "whole2", what: "say primary", build: "0.1.0+bbbbbbb" });
    store.close();

    const later = SessionStore.open(dir, { build: "0.1.0+ccccccc" });
    later.append("s1", contribution("s1", "alice"), T0 + 1);
    expect(later.sentOf("s1")).toEqual([
      { sessionId: "s1", eventSeq: seq, position: 0, at: T0, digest: "whole", decisive: "d1:decides", what: "ModelContributionRequest", build: "0.1.0+aaaaaaa" },
      { sessionId: "s1", eventSeq: seq, position: 1, at: T0, digest: "whole2", what: "say primary", build: "0.1.0+bbbbbbb" },
    ]);
    expect(later.inputBuildsOf("s1")).toEqual([
      { build: "0.1.0+aaaaaaa", inputs: 1 },
      { build: "0.1.0+ccccccc", inputs: 1 },
    ]);
    later.close();
  });

  it("leave a row without them as it is: read back without a build or a decisive digest", () => {
    const dir = tempDir();
    const store = SessionStore.open(dir);
    const seq = store.append("s1", start("s1"), T0);
    store.recordSent({ sessionId: "s1", eventSeq: seq, position: 0, at: T0, digest: "whole", what: "ModelContributionRequest" });
    store.close();
    // As a build before v8 left them.
    const db = new Database(join(dir, DATABASE_FILE));
    db.exec("UPDATE events SET build = NULL; UPDATE sent SET build = NULL, decisive = NULL");
    db.close();
    const reopened = SessionStore.open(dir, { readonly: true });
    expect(reopened.sentOf("s1")).toEqual([{ sessionId: "s1", eventSeq: seq, position: 0, at: T0, digest: "whole", what: "ModelContributionRequest" }]);
    expect(reopened.sentOf("s1")[0]).not.toHaveProperty("build");
    expect(reopened.inputBuildsOf("s1")).toEqual([{ build: undefined, inputs: 1 }]);
    reopened.close();
  });

  it("default to the running build's", () => {
    const store = SessionStore.open(tempDir());
    expect(store.build).toBe(runningBuildId());
    store.close();
  });
});

describe("buildIdOf", () => {
  it("is the version and the commit, marked when the tree differed from it, else the version and when it was built", () => {
    expect(buildIdOf({ version: "0.1.0", builtAt: "2026-11-29T02:19:08.857Z", commit: "813572e" })).toBe("0.1.0+813572e");
    expect(buildIdOf({ version: "0.1.0", commit: "813572e", dirty: true })).toBe("0.1.0+813572e.dirty");
    expect(buildIdOf({ version: "0.1.0", builtAt: "2026-11-29T02:19:08.857Z" })).toBe("0.1.0 (built 2026-11-29T02:19Z)");
    expect(buildIdOf({ version: "0.1.0" })).toBe("0.1.0 (from source)");
  });
});
