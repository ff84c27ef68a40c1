/**
 * The worker_threads entry of the model worker. Loads the shapes once, then answers
 * `analyse` and `check` requests one at a time. Any failure becomes a reply, so the main
 * thread only ever sees values; a crash here is caught there as an `error`/`exit` event.
 */
import { oversizedStatement } from "./statement-size.js";
import { parentPort, workerData } from "node:worker_threads";
import { Store } from "n3";
import { analyseModel } from "./analysis.js";
import { countItems } from "./merge.js";
import { parseContribution } from "./parse.js";
import { loadShapes } from "./shapes.js";
import { splitsAhead } from "../protocol/model-parts.js";
import type { CheckRequest, ContributionCheck, Stored, StoredAnalysis, WorkerReply, WorkerRequest, WorkerSetup } from "./worker-protocol.js";
import { openSecondWriter } from "../store/database-file.js";
import { BlobWriter } from "../store/blobs.js";

const port = parentPort;
if (port === null) throw new Error("analysis-worker.ts must run as a worker thread");

const send = (reply: WorkerReply): void => port.postMessage(reply);

function checkContribution(request: CheckRequest): ContributionCheck {
  const outcome = parseContribution(request.turtle, {
    baseIri: request.baseIri,
    graphIri: request.graphIri,
    maxTriples: request.maxTriples,
  });
  if (!outcome.ok) return outcome;
  const oversized = oversizedStatement(outcome.quads, request.maxStatementBytes, request.skolemBase);
  if (oversized) return { ok: false, error: oversized };
  return { ok: true, tripleCount: outcome.tripleCount, counts: countItems(new Store(outcome.quads), request.graphIri) };
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

async function answer(request: WorkerRequest, shapes: Store): Promise<WorkerReply> {
  try {
    if (request.kind === "check") {
      const check = checkContribution(request);
      const { keepFor } = request;
      const stored = check.ok && keepFor !== undefined ? keep((b) => b.write(keepFor, request.turtle)) : {};
      return { id: request.id, kind: "checked", check, ...stored };
    }
    const analysis = await analyseModel(request.job, shapes);
    // Splitting a large model takes as long as validating it: here, not on the main thread.
    const modelSplits = splitsAhead(analysis.modelTurtle, request.splits ?? []);
    const { sessionId } = request.job;
    const stored = keep<StoredAnalysis>((b) => ({
      modelTurtle: b.write(sessionId, analysis.modelTurtle),
      modelTrig: b.write(sessionId, analysis.modelTrig),
      formal: b.writeJson(sessionId, analysis.formal),
    }));
    return { id: request.id, kind: "analysed", analysis: modelSplits.length > 0 ? { ...analysis, modelSplits } : analysis, ...stored };
  } catch (error) {
    return { id: request.id, kind: "failed", error: error instanceof Error ? error.message : String(error) };
  }
}

let shapes: Store;
let blobs: BlobWriter | undefined;
try {
  shapes = loadShapes((workerData as WorkerSetup).shapesPath);
} catch (error) {
  send({ kind: "startup-failed", error: `could not load the SHACL shapes: ${error instanceof Error ? error.message : String(error)}` });
  process.exit(1);
}
try {
  const storePath = (workerData as WorkerSetup).storePath;
  // Without it, everything still works: the main thread writes the texts inline.
  if (storePath !== undefined) blobs = new BlobWriter(openSecondWriter(storePath));
} catch {
  blobs = undefined;
}

port.on("message", (request: WorkerRequest) => {
  void answer(request, shapes).then((reply) => {
    try {
      send(reply);
    } catch (error) {
      // e.g. a value structured clone cannot copy: still answer, so the job cannot hang.
      send({ id: request.id, kind: "failed", error: `could not return the result: ${String(error)}` });
    }
  });
});
send({ kind: "ready" });
