import type { Reporter, TestModule } from "vitest/node";

interface Tally {
  passed: number;
  failed: number;
  skipped: number;
}

const words = (t: Tally) => `${t.passed} passed, ${t.failed} failed${t.skipped ? `, ${t.skipped} skipped` : ""}`;

/**
 * Ends the run with one plain line, `tests: N passed, N failed, N skipped`, which CI
 * logs and people scanning them can read at a glance. Before it, one line per project of
 * vitest.config.ts (`tests (postgres): …`), so the two stores' runs can be told apart.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    const total: Tally = { passed: 0, failed: 0, skipped: 0 };
    const byProject = new Map<string, Tally>();
    for (const module of testModules) {
      const name = module.project.name;
      const project = byProject.get(name) ?? { passed: 0, failed: 0, skipped: 0 };
      byProject.set(name, project);
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        const key = state === "passed" ? "passed" : state === "failed" ? "failed" : "skipped";
        project[key]++;
        total[key]++;
      }
    }
    total.failed += unhandledErrors.length;
    const lines = byProject.size > 1 ? [...byProject].map(([name, t]) => `tests (${name}): ${words(t)}`) : [];
    process.stdout.write(`\n${[...lines, `tests: ${words(total)}`].join("\n")}\n`);
  }
}
