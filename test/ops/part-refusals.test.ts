/** Parts refused at the edge (before any session step) reach the refusal counter with a fixed reason. */
import { describe, expect, it } from "vitest";
import type { CheckAnswer } from "../../src/model-workers/model-worker.js";
import type { PartRefusal } from "../../src/host/contribution-parts.js";
import type { ModelService } from "../../src/host/session-host.js";
import { partRefusalReason } from "../../src/ops/refusals.js";
import { testHost } from "../support/test-host.js";

const COUNTS = { entities: 1, stateVariables: 0, actions: 0, constraints: 0, goals: 0 };
const MODELS: ModelService = {
  check: async (): Promise<CheckAnswer> => ({ ok: true, check: { ok: true, tripleCount: 1, counts: { ...COUNTS, triples: 1 } } }),
  analyse: () => new Promise(() => undefined),
  verify: () => Promise.reject(new Error("unused")),
};

describe("parts refused at the edge", () => {
  it("are reported to onPartRefused with the assembler's reason, which maps onto the fixed set", async () => {
    const refused: PartRefusal[] = [];
    const host = testHost({ maxLiveSessions: 5, models: MODELS, onPartRefused: (reason) => refused.push(reason) });
    const started = host.start("Move the crates", { nick: "dana", jid: "dana@localhost" }, { expectedAgents: [] });
    if (!started.ok) throw new Error(started.reason);
    const modeler = { nick: "modeler", jid: undefined, identity: "occupant:MODELER" };
    await host.contributePart(started.sessionId, modeler, { k: 2, n: 3 }, "<#a> a <#B> .");
    expect(refused).toEqual(["no-first-part"]);
    expect(refused.map(partRefusalReason)).toEqual(["part-out-of-sequence"]);
    expect(partRefusalReason("too-large")).toBe("contribution-too-large");
    await host.close();
  });
});
