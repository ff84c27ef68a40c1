/**
 * The one place where what a stage throws stops: counted by stage, logged with the stanza's
 * id, and no further, so that one bad message never takes the process down nor stops the
 * messages after it. The boundary answers nothing itself: what the sender hears is what the
 * stages said before the failure, at most once, never a second answer on top of it.
 */
import type { Logger } from "pino";
import type { Line } from "../xmpp/direct-line.js";
import type { Element } from "../xmpp/stanza.js";
import type { InboundStage } from "../ops/inbound-stages.js";

/** Where failures are logged and counted. */
export interface ErrorBoundaryOptions {
  log: Logger;
  /** Counts a failure of a stage (the metric `mfr_inbound_errors_total{stage}`). */
  count: (stage: InboundStage) => void;
}

/** What failed: the stanza, the line it came on, and the stage that was running. */
export interface Failure {
  stage: InboundStage;
  stanza: Element;
  /** Undefined for a stanza not yet sorted into a message (dispatch). */
  line?: Line;
}

/** Catches, counts and logs what a stage throws, and answers nothing itself; see the top of this file. */
export class ErrorBoundary {
  constructor(private readonly options: ErrorBoundaryOptions) {}

  /** Runs synchronous work; what it throws is caught here. True when it finished. */
  guard(failure: () => Failure, work: () => void): boolean {
    try {
      work();
      return true;
    } catch (err) {
      this.caught(failure(), err);
      return false;
    }
  }

  /** Runs asynchronous work; what it throws or rejects with is caught here. True when it finished. */
  async run(failure: () => Failure, work: () => Promise<void>): Promise<boolean> {
    try {
      await work();
      return true;
    } catch (err) {
      this.caught(failure(), err);
      return false;
    }
  }

  /** Counts and logs one failure; the log line says which stanza (its id and sender) and where. */
  caught(failure: Failure, err: unknown): void {
    const { stage, stanza, line } = failure;
    this.options.count(stage);
    const fields = { err, stage, id: stanza.attrs.id as string | undefined, from: stanza.attrs.from as string | undefined };
    if (stage === "dispatch") this.options.log.error(fields, "failed to handle a stanza");
    else if (line === "direct-line") this.options.log.error(fields, "failed to handle a message on the direct line");
    else this.options.log.error(fields, "failed to handle a message");
  }
}
