/**
 * An analysis reply in pieces. Structured clone deserialises a message in one task of the
 * receiving thread: a 1M-triple model's reply (the model's Turtle and its parts for the
 * SolutionRequest, some 140 MB of text) held the main thread for 85–105 ms. Sent as one
 * message per model part and per few MiB of the Turtle, each piece is read in a task of its
 * own, and the connection is served between them.
 *
 * The worker sends the pieces first, then the reply with those texts left empty; the pool
 * (model-worker.ts) collects the pieces of the job it runs and puts them back. The pool asks
 * for each next piece when it has taken one in: pieces posted all at once were read by the
 * main thread in one go (Node drains a port's waiting messages in one task), 122 ms of
 * deserialisation and 87 ms of garbage collection without a break at 1M triples.
 */
import type { AnalysedModel, WorkerReply } from "./worker-protocol.js";

/** One text of an analysis reply: a model part of one of its splits, or a slice of its Turtle. */
export type ReplyPiece = { id: number; kind: "piece"; text: string } & ({ split: number } | { turtle: true });

/** Where a reply is cut into pieces (characters); tests pass small sizes to make pieces of small replies. */
export interface PieceSizes {
  /** Slices of the Turtle at most this long (characters). */
  turtleSlice: number;
  /** Replies with less text than this go whole: pieces only pay off where one message would stall. */
  wholeBelow: number;
}

/** A 4 Mi-character slice takes about a millisecond to read; a reply under 8 Mi characters, a few. */
const SIZES: PieceSizes = { turtleSlice: 4 * 1024 * 1024, wholeBelow: 8 * 1024 * 1024 };

/**
 * The messages that carry `reply`, in order: the reply itself when it is small or not an
 * analysis; else its pieces, then the reply with those texts left empty.
 */
export function replyMessages(reply: WorkerReply, sizes: PieceSizes = SIZES): (WorkerReply | ReplyPiece)[] {
  if (reply.kind !== "analysed" || textLength(reply.analysis) < sizes.wholeBelow) return [reply];
  const messages: (WorkerReply | ReplyPiece)[] = [];
  const { id, analysis } = reply;
  const splits = (analysis.modelSplits ?? []).map((split, index) => {
    if (!split.parts.ok) return split;
    for (const text of split.parts.parts) messages.push({ id, kind: "piece", split: index, text });
    return { ...split, parts: { ...split.parts, parts: [] } };
  });
  for (let at = 0; at < analysis.modelTurtle.length; at += sizes.turtleSlice) {
    messages.push({ id, kind: "piece", turtle: true, text: analysis.modelTurtle.slice(at, at + sizes.turtleSlice) });
  }
  const emptied: AnalysedModel = { ...analysis, modelTurtle: "", ...(analysis.modelSplits ? { modelSplits: splits } : {}) };
  messages.push({ ...reply, analysis: emptied });
  return messages;
}

/** The pieces of one job as they arrive, put back into its reply (main thread). */
export class ReplyPieces {
  /**
   * The Turtle's slices, appended as they come. Not joined at the end: copying 38 M characters
   * into a new string held the main thread for 115–126 ms at 1M triples (much of it the first
   * touch of fresh memory). V8 keeps the appended slices as one string made of them, which the
   * main thread never needs to read whole: the model goes out in the parts the worker made.
   */
  private turtle = "";
  private readonly parts = new Map<number, string[]>();

  /** No piece has arrived yet (a slice of the Turtle is never empty). */
  get empty(): boolean {
    return this.turtle === "" && this.parts.size === 0;
  }

  /** Takes in one piece of this job's reply; pieces of one kind must come in the order they were sent. */
  add(piece: ReplyPiece): void {
    if ("turtle" in piece) {
      this.turtle += piece.text;
      return;
    }
    const parts = this.parts.get(piece.split);
    if (parts === undefined) this.parts.set(piece.split, [piece.text]);
    else parts.push(piece.text);
  }

  /** `reply` with its texts back; a reply that came whole is returned as it is. */
  assemble(reply: WorkerReply): WorkerReply {
    if (reply.kind !== "analysed" || this.empty) return reply;
    const { analysis } = reply;
    const splits = analysis.modelSplits?.map((split, index) => {
      const parts = this.parts.get(index);
      return parts !== undefined && split.parts.ok ? { ...split, parts: { ...split.parts, parts } } : split;
    });
    return { ...reply, analysis: { ...analysis, modelTurtle: this.turtle, ...(splits ? { modelSplits: splits } : {}) } };
  }
}

function textLength(analysis: AnalysedModel): number {
  let length = analysis.modelTurtle.length;
  for (const split of analysis.modelSplits ?? []) if (split.parts.ok) for (const part of split.parts.parts) length += part.length;
  return length;
}
