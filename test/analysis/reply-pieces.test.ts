/**
 * A large analysis reply crosses from the model worker in pieces (reply-pieces.ts); what the
 * pool puts back together must be the reply the worker made, part for part.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ReplyPieces, replyMessages, type ReplyPiece } from "../../src/analysis/reply-pieces.js";
import type { AnalysedModel, WorkerReply } from "../../src/analysis/worker-protocol.js";

const SMALL = { turtleSlice: 7, wholeBelow: 20 };

function analysed(id: number, modelTurtle: string, splits: Array<string[] | null>): WorkerReply {
  const analysis: AnalysedModel = {
    validation: { conforms: true, violations: 0, warnings: 0, results: [], summary: "ok" },
    modelTurtle,
    problemModelIri: "http://example.org/s/problem-model",
    tripleCount: 3,
    countsByAgent: {},
    parseErrors: [],
    formal: { digest: "d", hasFormalPart: false, notMachineCheckable: [] },
    modelSplits: splits.map((parts, i) => ({
      maxPartWireBytes: 100 + i,
      skolemBase: "http://example.org/s/",
      parts: parts === null ? { ok: false as const, error: "one statement is too large" } : { ok: true as const, parts, triples: parts.length },
    })),
  };
  return { id, kind: "analysed", analysis };
}

/** What the pool does with the messages of one job, in order. */
function receive(messages: Array<WorkerReply | ReplyPiece>): { reply: WorkerReply | undefined; messages: number } {
  const pieces = new ReplyPieces();
  let reply: WorkerReply | undefined;
  for (const m of messages) {
    if (m.kind === "piece") pieces.add(m);
    else reply = pieces.assemble(m);
  }
  return { reply, messages: messages.length };
}

describe("an analysis reply in pieces", () => {
  it("is put back exactly as sent, whatever its texts and splits", () => {
    const split = fc.option(fc.array(fc.string({ maxLength: 30 }), { maxLength: 6 }), { nil: null });
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), fc.array(split, { maxLength: 3 }), (turtle, splits) => {
        const reply = analysed(7, turtle, splits);
        const sent: Array<WorkerReply | ReplyPiece> = [];
        sent.push(...replyMessages(reply, SMALL));
        expect(receive(sent).reply).toEqual(reply);
        // The last message is the reply itself; everything before it is a piece of it.
        expect(sent.at(-1)?.kind).toBe("analysed");
        expect(sent.slice(0, -1).every((m) => m.kind === "piece" && m.id === 7)).toBe(true);
      }),
    );
  });

  it("goes in pieces only when large, and then no piece holds more than one part or slice", () => {
    const small = analysed(1, "short", [["a", "b"]]);
    const sentSmall: Array<WorkerReply | ReplyPiece> = [];
    sentSmall.push(...replyMessages(small, SMALL));
    expect(sentSmall).toEqual([small]);

    const large = analysed(2, "x".repeat(30), [["part one", "part two"]]);
    const sent: Array<WorkerReply | ReplyPiece> = [];
    sent.push(...replyMessages(large, SMALL));
    // Two parts, then the Turtle in slices of 7 (5 of them), then the emptied reply.
    expect(sent).toHaveLength(2 + 5 + 1);
    const last = sent.at(-1);
    if (last?.kind !== "analysed") throw new Error("the reply comes last");
    expect(last.analysis.modelTurtle).toBe("");
    expect(receive(sent).reply).toEqual(large);
  });

  it("leaves other replies whole", () => {
    const failed: WorkerReply = { id: 3, kind: "failed", error: "x".repeat(100) };
    const sent: Array<WorkerReply | ReplyPiece> = [];
    sent.push(...replyMessages(failed, SMALL));
    expect(sent).toEqual([failed]);
  });
});
