import { describe, expect, it } from "vitest";
import type { ModelPool } from "../../src/host/model-service.js";
import { ModelShare } from "../../src/model-workers/model-share.js";
import type { JobOptions } from "../../src/analysis/model-jobs.js";

/** A pool that refuses every job for a full queue, as ModelWorker does, through the job's own listener. */
function fullPool(): ModelPool & { closed: number } {
  const refuse = (options?: JobOptions) => {
    options?.onQueueFull?.();
    return Promise.resolve({ ok: false as const, error: "busy" });
  };
  return {
    closed: 0,
    workers: 2,
    queued: 7,
    warmUp: () => undefined,
    check: (_request, options) => refuse(options),
    analyse: (_job, options) => refuse(options),
    verify: (_request, options) => refuse(options),
    close() {
      this.closed += 1;
      return Promise.resolve();
    },
  };
}

describe("a coordinator's share of a common model worker pool", () => {
  it("counts its own refusals, reads the pool's gauges, and leaves the pool running when it closes", async () => {
    const pool = fullPool();
    let first = 0;
    let second = 0;
    const a = new ModelShare(pool, () => (first += 1));
    const b = new ModelShare(pool, () => (second += 1));
    await a.check({ sessionId: "s", agent: "x", content: "", mime: "text/turtle" } as never, { key: "s" });
    await a.verify({} as never);
    await b.analyse({} as never);
    expect([first, second]).toEqual([2, 1]);
    expect([a.workers, a.queued]).toEqual([2, 7]);
    await a.close();
    expect(pool.closed).toBe(0);
    // A closed share asks nothing more of the pool; the other share goes on.
    expect(await a.check({} as never)).toEqual({ ok: false, error: "the model worker was closed" });
    expect(first).toBe(2);
    await b.verify({} as never);
    expect(second).toBe(2);
  });
});
