/**
 * A test hook, inert unless MFR_TEST_STOP_INSIDE_WRITE is set: the process stops itself
 * (SIGSTOP) inside one of its fenced transactions, after the writes and before the commit,
 * so that a test pauses an owner inside a write on purpose rather than by luck
 * (test/fleet/failover.test.ts, "paused inside a write"). The value is `<write>:<n>`: stop
 * in the n-th transaction that holds a write of that name (the names are PgRoomStore's:
 * `append contribution`, `sent record`, `heard`, …), counted over the whole process.
 */
import type { Logger } from "pino";

/** The hook PgRoomStore calls inside each fenced transaction with its writes' names; undefined when the variable is not set. */
export function stopInsideWriteHook(spec: string | undefined, log: Logger): ((writes: readonly string[]) => void) | undefined {
  if (spec === undefined || spec === "") return undefined;
  const match = /^(.+):(\d+)$/.exec(spec);
  if (!match) throw new TypeError(`MFR_TEST_STOP_INSIDE_WRITE is "<write>:<n>", not ${JSON.stringify(spec)}`);
  const write = match[1]!;
  const nth = Number(match[2]);
  let seen = 0;
  log.warn({ write, nth }, "test hook: this process will stop itself inside a write (MFR_TEST_STOP_INSIDE_WRITE)");
  return (writes) => {
    if (!writes.includes(write) || ++seen !== nth) return;
    log.warn({ writes }, "test hook: stopping inside a write");
    process.kill(process.pid, "SIGSTOP");
  };
}
