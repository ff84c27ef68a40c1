/**
 * A second process for the store tests, run through register-ts.mjs:
 * - `hold <dataDir>`: opens the store, prints `ready <pid>`, and keeps it open until killed.
 * - `append <dataDir> <sessionId>`: appends inputs for ever, printing each returned seq on
 *   its own line only after `append` has returned (so the parent knows what was promised).
 */
import { SessionStore } from "../../../src/store/session-store.js";
import type { Input } from "../../../src/session/step-io.js";

const [mode, dataDir, sessionId = "s1"] = process.argv.slice(2);
if (!dataDir) throw new Error("usage: store-child.ts hold|append <dataDir> [sessionId]");

try {
  const store = SessionStore.open(dataDir);
  if (mode === "hold") {
    process.stdout.write(`ready ${process.pid}\n`);
    setInterval(() => undefined, 60_000);
  } else if (mode === "append") {
    let n = 0;
    const next = (): void => {
      // Batches keep stdout writes from dominating; every printed seq was returned by append.
      const seqs: number[] = [];
      for (let i = 0; i < 50; i++, n++) {
        const input: Input = { kind: "cancel", sessionId, by: { nick: `n${n}`, jid: undefined } };
        seqs.push(store.append(sessionId, input, 1_000 + n));
      }
      process.stdout.write(`${seqs.join("\n")}\n`, () => setImmediate(next));
    };
    next();
  } else {
    throw new Error(`unknown mode ${mode}`);
  }
} catch (error) {
  process.stdout.write(`error ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
