/**
 * The contribution check's rules: statements are bounded by what a model part can carry, less
 * the blank-label margin; only a text the core will be given, large enough to be a blob, is
 * kept by the worker and adopted by the journal; a check that could not run is a refusal.
 */
import { describe, expect, it } from "vitest";
import type { CheckRequest } from "../../src/model-workers/model-worker.js";
import { BLANK_LABEL_MARGIN, checkContribution, type ContributionCheckOptions } from "../../src/host/contribution-check.js";
import type { ModelService } from "../../src/host/model-service.js";
import { maxModelStatementBytes } from "../../src/host/outgoing.js";
import { BLOB_MIN_CHARS, type BlobRef } from "../../src/host/journal-records.js";
import { settings } from "../support/session-fixtures.js";
import { RENDER, silent } from "./fakes.js";

const ADA = { nick: "ada", jid: undefined };
const COUNTS = { entities: 1, stateVariables: 0, actions: 0, constraints: 0, goals: 0, triples: 1 };
const LARGE = `# ${"x".repeat(BLOB_MIN_CHARS)}\n<#a> a <#T> .`;

function checking(answer: Awaited<ReturnType<ModelService["check"]>>) {
  const requests: CheckRequest[] = [];
  const adopted: Array<{ sessionId: string; ref: BlobRef }> = [];
  const models: ModelService = {
    check: async (request) => {
      requests.push(request);
      return answer;
    },
    analyse: () => Promise.reject(new Error("unused")),
    verify: () => Promise.reject(new Error("unused")),
  };
  const options: ContributionCheckOptions = { models, settings: settings(), render: RENDER, log: silent, adopt: (sessionId, _value, ref) => void adopted.push({ sessionId, ref }) };
  return { options, requests, adopted };
}

describe("checkContribution", () => {
  it("bounds statements by what a model part carries, less the margin for blank-node labels", async () => {
    const { options, requests } = checking({ ok: true, check: { ok: true, tripleCount: 1, counts: COUNTS } });
    expect(await checkContribution(options, "s1", ADA, "<#a> a <#T> .", true)).toEqual({ ok: true, tripleCount: 1, counts: COUNTS });
    expect(requests[0]?.maxStatementBytes).toBe(maxModelStatementBytes("s1", RENDER) - BLANK_LABEL_MARGIN);
    expect(requests[0]?.graphIri).toMatch(/contribution\/ada$/);
  });

  it("has a large text kept by the worker only when the core will be given it, and the journal adopts the blob", async () => {
    const { options, requests, adopted } = checking({ ok: true, check: { ok: true, tripleCount: 1, counts: COUNTS }, stored: "digest-1" });
    await checkContribution(options, "s1", ADA, LARGE, false);
    await checkContribution(options, "s1", ADA, "<#a> a <#T> .", true);
    expect(requests.map((r) => r.keepFor)).toEqual([undefined, undefined]);
    await checkContribution(options, "s1", ADA, LARGE, true);
    expect(requests[2]?.keepFor).toBe("s1");
    expect(adopted.at(-1)).toEqual({ sessionId: "s1", ref: { digest: "digest-1", as: "text" } });
    // Without a journal that adopts blobs, nothing is kept.
    await checkContribution({ ...options, adopt: undefined }, "s1", ADA, LARGE, true);
    expect(requests[3]?.keepFor).toBeUndefined();
  });

  it("refuses, saying why, when the check could not be run; a parse error keeps its place", async () => {
    const failed = checking({ ok: false, error: "the model worker was closed" });
    expect(await checkContribution(failed.options, "s1", ADA, "<#a> a <#T> .", true)).toEqual({ ok: false, message: "it could not be checked (the model worker was closed)", line: null, column: null });
    const broken = checking({ ok: true, check: { ok: false, error: { message: "Expected entity", line: 3, column: 9 } } });
    expect(await checkContribution(broken.options, "s1", ADA, "<#a> a", true)).toEqual({ ok: false, message: "Expected entity", line: 3, column: 9 });
  });
});
