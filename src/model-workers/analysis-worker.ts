/**
 * The worker_threads entry of the model worker. Loads the shapes once, then answers
 * `analyse`, `check` and `verify` requests one at a time. Any failure becomes a reply, so the
 * main thread only ever sees values; a crash here is caught there as an `error`/`exit` event.
 * The formal models this thread read or loaded stay here (formal-cache.ts): the main thread
 * gets their summaries, and sends plans here to be checked.
 */
import { oversizedStatement } from "../analysis/statement-size.js";
import { parentPort, workerData } from "node:worker_threads";
import type { Store } from "n3";
import { ModelStore } from "../rdf/quad-store.js";
import { analyseModel } from "../analysis/analysis.js";
import { countItems } from "../rdf/merge.js";
import { parseInto } from "../rdf/parse.js";
import { loadShapes } from "../rdf/shapes.js";
import { splitsAhead } from "../protocol/model-parts.js";
import type { AnalysedModel, CheckRequest, ContributionCheck, NextPiece, Stored, StoredAnalysis, VerifyRequest, WorkerReply, WorkerRequest, WorkerSetup } from "../analysis/worker-protocol.js";
import { openSecondWriter } from "../store/database-file.js";
import { BlobReader, BlobWriter, blobDigest } from "../store/blobs.js";
import { worthABlob } from "../host/journal-records.js";
import { replyMessages, type ReplyPiece } from "../analysis/reply-pieces.js";
import { summariseFormalModel, type FormalModel } from "../formal/index.js";
import { checkPlan } from "../session/plan-check.js";
import { FormalModelCache } from "../analysis/formal-cache.js";
import { CHECK_BLANK_PREFIX, ParsedContributions } from "../analysis/parsed-contributions.js";

const port = parentPort;
if (port === null) throw new Error("analysis-worker.ts must run as a worker thread");

const send = (reply: WorkerReply | ReplyPiece): void => port.postMessage(reply);

function checkContribution(request: CheckRequest): ContributionCheck {
  // Into a store of its own: its index removes repeated triples, and the counts read it
  // (no separate pass to find the distinct triples, no second store built from them).
  const store = new ModelStore();
  const outcome = parseInto(store, request.turtle, {
    baseIri: request.baseIri,
    graphIri: request.graphIri,
    maxTriples: request.maxTriples,
    blankNodePrefix: CHECK_BLANK_PREFIX,
  });
  if (!outcome.ok) return outcome;
  const oversized = oversizedStatement(outcome.quads, request.maxStatementBytes, request.skolemBase);
  if (oversized) return { ok: false, error: oversized };
  // The session's validation, which usually follows soon, takes these instead of parsing the text again.
  parsedContributions.remember(request.baseIri, request.graphIri, request.turtle, outcome.quads);
  return { ok: true, tripleCount: outcome.tripleCount, counts: countItems(store, request.graphIri) };
}

/**
 * Writes what `write` stores, through this worker's own connection, before the reply goes:
 * the main thread then appends events that refer to it and never writes the text itself.
 * A failure to store is reported, not fatal: the main thread keeps the text inline.
 */
function keep<T>(write: (blobs: BlobWriter) => T): Stored<T> {
  if (blobs === undefined) return {};
  try {
    return { stored: write(blobs) };
  } catch (error) {
    return { storeError: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * The formal model a plan check names: held here, else read from the JSON the main thread
 * sent, else from the store. Throws when none of them has it (the check then does not finish).
 */
function formalModelFor(request: VerifyRequest): FormalModel {
  const held = formalModels.get(request.digest);
  if (held !== undefined) return held;
  const json = request.formalJson ?? blobReader?.text(request.sessionId, request.digest);
  if (json === undefined) {
    throw new Error(`the formal model ${request.digest.slice(0, 12)}… of session ${request.sessionId} is neither held by the model worker nor in the store`);
  }
  const model = JSON.parse(json) as FormalModel;
  formalModels.remember(request.digest, model, json.length);
  return model;
}

async function answer(request: WorkerRequest, shapes: Store): Promise<WorkerReply> {
  try {
    if (request.kind === "check") {
      const check = checkContribution(request);
      const { keepFor } = request;
      // Stored whether or not it passed: a refused contribution is logged too, and without the
      // blob the main thread wrote its text inline (10 M characters, 60–80 ms, bench/stalls.ts).
      const stored = keepFor !== undefined ? keep((b) => b.write(keepFor, request.turtle)) : {};
      return { id: request.id, kind: "checked", check, ...stored };
    }
    if (request.kind === "verify") {
      return { id: request.id, kind: "verified", verification: checkPlan(formalModelFor(request), request.claim) };
    }
    const { formal, ...analysis } = await analyseModel(request.job, shapes, parsedContributions);
    // Splitting a large model takes as long as validating it: here, not on the main thread.
    const modelSplits = splitsAhead(analysis.modelTurtle, request.splits ?? []);
    const { sessionId } = request.job;
    const formalJson = JSON.stringify(formal);
    const digest = blobDigest(formalJson);
    const summary = summariseFormalModel(formal, digest);
    // The formal model is held and stored (plan checks in another thread and export read it by
    // digest) only when plans can be checked against it (verdictWithoutSimulation): one without
    // a formal part, which export reads afresh and refuses, was hundreds of models held in a
    // burst of small sessions and a write of tens of KiB each. The model's Turtle is stored
    // only when it is large enough not to be logged inline.
    const checkable = summary.hasFormalPart;
    if (checkable) formalModels.remember(digest, formal, formalJson.length);
    const stored = keep<StoredAnalysis>((b) => ({
      ...(worthABlob(analysis.modelTurtle) ? { modelTurtle: b.write(sessionId, analysis.modelTurtle) } : {}),
      ...(checkable ? { formal: b.write(sessionId, formalJson, digest) } : {}),
    }));
    const analysed: AnalysedModel = {
      ...analysis,
      ...(modelSplits.length > 0 ? { modelSplits } : {}),
      formal: summary,
      // Not stored: the main thread keeps the texts (the formal model's for the plan checks of this session).
      ...(checkable && stored.stored === undefined ? { formalJson } : {}),
    };
    return { id: request.id, kind: "analysed", analysis: analysed, ...stored };
  } catch (error) {
    return { id: request.id, kind: "failed", error: error instanceof Error ? error.message : String(error) };
  }
}

let shapes: Store;
let blobs: BlobWriter | undefined;
let blobReader: BlobReader | undefined;
const formalModels = new FormalModelCache();
const parsedContributions = new ParsedContributions();
try {
  shapes = loadShapes((workerData as WorkerSetup).shapesPath);
} catch (error) {
  send({ kind: "startup-failed", error: `could not load the SHACL shapes: ${error instanceof Error ? error.message : String(error)}` });
  process.exit(1);
}
try {
  const storePath = (workerData as WorkerSetup).storePath;
  // Without it, everything still works: the main thread writes the texts inline.
  if (storePath !== undefined) {
    const db = openSecondWriter(storePath);
    blobs = new BlobWriter(db);
    blobReader = new BlobReader(db);
  }
} catch {
  blobs = undefined;
  blobReader = undefined;
}

/** The rest of a reply in pieces, sent one message at a time as the pool asks for each. */
let rest: { id: number; messages: (WorkerReply | ReplyPiece)[] } | undefined;

/** Sends the next message of job `id`'s reply; one that cannot be sent fails the job instead, so it never hangs. */
function sendNext(id: number): void {
  try {
    const next = rest?.messages.shift();
    if (next === undefined) return;
    if (rest?.messages.length === 0) rest = undefined;
    send(next);
  } catch (error) {
    // e.g. a value structured clone cannot copy.
    rest = undefined;
    send({ id, kind: "failed", error: `could not return the result: ${String(error)}` });
  }
}

port.on("message", (message: WorkerRequest | NextPiece) => {
  if (message.kind === "next-piece") {
    if (rest?.id === message.id) sendNext(message.id);
    return;
  }
  const request = message;
  void answer(request, shapes).then((reply) => {
    // A large analysis goes in pieces, so the main thread reads it in short tasks.
    rest = { id: request.id, messages: replyMessages(reply) };
    sendNext(request.id);
  });
});
send({ kind: "ready" });
