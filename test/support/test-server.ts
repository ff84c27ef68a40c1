/**
 * One server for the calling test file (started before its tests, stopped after them), and a
 * list of clean-up steps run after each test in reverse order (peers, coordinators). The
 * Prosody, ejabberd and PostgreSQL test supports are this with their own start.
 */
import { afterAll, afterEach, beforeAll } from "vitest";

export interface TestServerHandle<S> {
  /** The running server; throws outside a test (before it started). */
  server: () => S;
  /** A clean-up step for after the current test. */
  afterThis: (step: () => Promise<unknown>) => void;
}

export function useTestServer<S extends { stop(): Promise<void> }>(what: string, start: () => Promise<S>, startTimeoutMs?: number): TestServerHandle<S> {
  let server: S | undefined;
  const steps: Array<() => Promise<unknown>> = [];
  beforeAll(async () => {
    server = await start();
  }, startTimeoutMs);
  afterEach(async () => {
    for (const step of steps.splice(0).reverse()) await step().catch(() => undefined);
  });
  afterAll(async () => {
    await server?.stop();
  });
  return {
    server: () => {
      if (!server) throw new Error(`the test ${what} is not running (use server() inside tests)`);
      return server;
    },
    afterThis: (step) => steps.push(step),
  };
}
