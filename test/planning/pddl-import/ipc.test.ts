/**
 * The IPC benchmarks of the shared data directory (16 domains, 470 problems): every problem
 * imports (none of them uses a construct the import refuses), quickly, and the first few of
 * each domain give the same model as the independent PDDL reader the export's round-trip test
 * uses (test/support/pddl-reader.ts), up to node names.
 */
import { describe, expect, it } from "vitest";
import type { FormalModel } from "../../../src/formal/model.js";
import { importPddl } from "../../../src/planning/pddl-import/index.js";
import { readPddl } from "../../support/pddl-reader.js";
import { imported, withoutNodes } from "./fixtures.js";
import { ipcFolders, ipcProblems } from "./ipc.js";

/** Problems per folder, as the shared data's README lists them. */
const EXPECTED_COUNTS: Record<string, number> = {
  "ipc-1998-gripper-round-1-strips": 20,
  "ipc-2000-blocks-strips-typed": 102,
  "ipc-2000-logistics-strips-typed": 84,
  "ipc-2002-depots-numeric-automatic": 22,
  "ipc-2002-depots-strips-automatic": 22,
  "ipc-2002-driverlog-numeric-automatic": 20,
  "ipc-2002-rovers-numeric-automatic": 20,
  "ipc-2002-rovers-strips-automatic": 20,
  "ipc-2002-satellite-numeric-automatic": 20,
  "ipc-2002-satellite-strips-automatic": 20,
  "ipc-2002-zenotravel-numeric-automatic": 20,
  "ipc-2002-zenotravel-strips-automatic": 20,
  "ipc-2023-numeric-counters": 20,
  "ipc-2023-numeric-delivery": 20,
  "ipc-2023-numeric-sailing": 20,
  "ipc-2023-numeric-zenotravel": 20,
};

/**
 * The two readers' models side by side: actions by name (readFormalModel sorts them), the
 * initial state as a set, and without the `object` type untyped objects are given (an entity
 * needs a type to pass SHACL; the other reader leaves it out).
 */
function comparable(model: FormalModel): unknown {
  return withoutNodes({
    ...model,
    objects: model.objects.map((o) => ({ ...o, types: o.types.filter((t) => t !== "object") })),
    actions: [...model.actions].sort((a, b) => (a.name < b.name ? -1 : 1)),
    initialState: [...new Set(model.initialState.map((f) => JSON.stringify(f)))].sort().map((f) => JSON.parse(f) as FormalModel["initialState"][number]),
  });
}

describe("importing the IPC benchmarks", () => {
  it("imports all 470 problems of the 16 domains, each one", () => {
    const started = Date.now();
    const results: Record<string, { ok: number; refused: string[] }> = {};
    for (const folder of ipcFolders()) {
      const tally = { ok: 0, refused: [] as string[] };
      for (const p of ipcProblems(folder)) {
        const result = importPddl(p.domain, p.problem);
        if (result.ok) tally.ok += 1;
        else tally.refused.push(`${p.instance}: ${result.refusal.file}:${result.refusal.line}:${result.refusal.column}: ${result.refusal.message}`);
      }
      results[folder] = tally;
    }
    expect(results).toEqual(Object.fromEntries(Object.entries(EXPECTED_COUNTS).map(([folder, ok]) => [folder, { ok, refused: [] }])));
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it("gives the first three problems of each domain the model the independent reader gives", () => {
    for (const folder of ipcFolders()) {
      for (const p of ipcProblems(folder, 3)) {
        const result = imported(p.domain, p.problem);
        expect(comparable(result.model), `${folder}/${p.instance}`).toEqual(comparable(readPddl(p.domain, p.problem)));
        expect(result.model.objects.length, `${folder}/${p.instance}`).toBeGreaterThan(0);
        expect(result.model.goals.length, `${folder}/${p.instance}`).toBeGreaterThan(0);
      }
    }
  });

  it("keeps each metric as a note", () => {
    const withMetric = ipcFolders()
      .flatMap((f) => ipcProblems(f, 1))
      .filter((p) => /\(:metric/i.test(p.problem));
    expect(withMetric.length).toBeGreaterThan(0);
    for (const p of withMetric) expect(imported(p.domain, p.problem).notes.some((n) => n.startsWith("metric: "))).toBe(true);
  });
});
