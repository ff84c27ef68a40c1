/**
 * The planner's own process (forked by isolated-planner.ts). Z3's WebAssembly heap cannot grow
 * past 2 GiB and running out aborts the whole process, whatever the watchdog does; here it
 * takes only this process with it, and the agent that forked it carries on.
 */
import { createPlanner } from "./index.js";
import type { PlannerReply, PlannerRequest } from "./isolated-planner.js";

const planner = await createPlanner();

function reply(message: PlannerReply): void {
  process.send?.(message);
}

process.on("message", (message: PlannerRequest) => {
  const run = async (): Promise<void> => {
    try {
      if (message.op === "solve") reply({ id: message.id, ok: true, result: await planner.solve(message.model, message.options) });
      else reply({ id: message.id, ok: true, result: await planner.checkPlan(message.model, message.plan, message.options) });
    } catch (err) {
      reply({ id: message.id, ok: false, error: err instanceof Error ? err.message : String(err) });
    }
  };
  void run();
});

// The parent going away (closed, killed) ends us too.
process.on("disconnect", () => {
  void planner.close().finally(() => process.exit(0));
});

reply({ ready: true });
