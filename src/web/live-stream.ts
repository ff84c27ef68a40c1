/**
 * Server-sent events for live pages: each step of a session (or of any session, for the
 * sessions page) becomes one `step` event carrying its timeline entries. Bounded: a few
 * hundred open streams at most, a comment every 15 s so proxies keep them open.
 */
import type { ServerResponse } from "node:http";
import type { SessionChange, SessionRecords } from "./session-records.js";

const MAX_STREAMS = 100;
const HEARTBEAT_MS = 15_000;

export class LiveStreams {
  private open = 0;

  constructor(private readonly records: Pick<SessionRecords, "onChange">) {}

  /** Streams the changes `wanted` accepts until the browser goes away; refuses past the bound. */
  serve(response: ServerResponse, wanted: (change: SessionChange) => boolean): void {
    if (this.open >= MAX_STREAMS) {
      response.statusCode = 503;
      response.setHeader("Retry-After", "30");
      response.end("too many live views open\n");
      return;
    }
    this.open++;
    response.statusCode = 200;
    response.setHeader("Content-Type", "text/event-stream; charset=utf-8");
    response.setHeader("Connection", "keep-alive");
    response.write("retry: 2000\n: live\n\n");
    const stop = this.records.onChange((change) => {
      if (wanted(change)) response.write(`event: step\ndata: ${JSON.stringify(change)}\n\n`);
    });
    const heartbeat = setInterval(() => response.write(": still here\n\n"), HEARTBEAT_MS);
    heartbeat.unref();
    response.on("close", () => {
      clearInterval(heartbeat);
      stop();
      this.open--;
    });
  }
}
