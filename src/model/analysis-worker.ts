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
import type { CheckRequest, ContributionCheck, WorkerReply, WorkerRequest, WorkerSetup } from "./worker-protocol.js";

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

async function answer(request: WorkerRequest, shapes: Store): Promise<WorkerReply> {
  try {
    if (request.kind === "check") return { id: request.id, kind: "checked", check: checkContribution(request) };
    const analysis = await analyseModel(request.job, shapes);
    // Splitting a large model takes as long as validating it: here, not on the main thread.
    const modelSplits = splitsAhead(analysis.modelTurtle, request.splits ?? []);
    return { id: request.id, kind: "analysed", analysis: modelSplits.length > 0 ? { ...analysis, modelSplits } : analysis };
  } catch (error) {
    return { id: request.id, kind: "failed", error: error instanceof Error ? error.message : String(error) };
  }
}

let shapes: Store;
try {
  shapes = loadShapes((workerData as WorkerSetup).shapesPath);
} catch (error) {
  send({ kind: "startup-failed", error: `could not load the SHACL shapes: ${error instanceof Error ? error.message : String(error)}` });
  process.exit(1);
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
