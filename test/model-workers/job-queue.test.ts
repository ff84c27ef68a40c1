/**
 * JobQueue hands out exactly the job a walk of the whole line would: the oldest of the lowest
 * rank whose key has no job running and no earlier job waiting (any rank).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JobQueue, type Rank } from "../../src/model-workers/job-queue.js";

interface Job {
  id: number;
  rank: Rank;
  key: string | undefined;
}

/** The rule, as a walk of every waiting job in the order they were asked for. */
function reference(waiting: readonly Job[], running: ReadonlySet<string>): Job | undefined {
  const blocked = new Set(running);
  const firstOfRank: (Job | undefined)[] = [undefined, undefined, undefined];
  for (const job of waiting) {
    if (job.key !== undefined) {
      if (blocked.has(job.key)) continue;
      blocked.add(job.key);
    }
    firstOfRank[job.rank] ??= job;
  }
  return firstOfRank.find((job) => job !== undefined);
}

const key = fc.option(fc.constantFrom("a", "b", "c", "d"), { nil: undefined, freq: 4 });
const step = fc.oneof(
  fc.record({ push: fc.tuple(fc.constantFrom<Rank>(0, 1, 2), key) }),
  fc.record({ take: fc.subarray(["a", "b", "c", "d"]) }),
);

describe("JobQueue", () => {
  it("takes the job a walk of the whole line would take, in any sequence of asks and takes", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const queue = new JobQueue<Job>();
        const waiting: Job[] = [];
        let id = 0;
        for (const s of steps) {
          if ("push" in s) {
            const job = { id: id++, rank: s.push[0], key: s.push[1] };
            queue.push(job);
            waiting.push(job);
          } else {
            const running = new Set(s.take);
            const expected = reference(waiting, running);
            expect(queue.next(running)).toBe(expected);
            expect(queue.take(running)).toBe(expected);
            if (expected) waiting.splice(waiting.indexOf(expected), 1);
          }
          expect(queue.length).toBe(waiting.length);
        }
        expect(queue.drain().sort((x, y) => x.id - y.id)).toEqual(waiting);
        expect(queue.length).toBe(0);
      }),
      { numRuns: 500 },
    );
  });
});
