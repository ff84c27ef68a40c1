/**
 * The example agent as a program. Without options it plays the demo's modeller (the sample
 * problem's script); with `--pddl DOMAIN PROBLEM` it contributes the formal model imported
 * from a PDDL domain and problem instead, in each session's first round, and proposes no plan.
 *
 *   npm run build
 *   XMPP_SERVICE=xmpp://localhost:5222 XMPP_DOMAIN=localhost XMPP_USERNAME=modeler \
 *   XMPP_PASSWORD=… MFR_ROOM=mfr@conference.localhost AGENT_NICK=Modeler \
 *   node dist/examples/agents/run-example-agent.js --pddl domain.pddl problem.pddl
 *
 * Both files are read and imported at start; a construct the importer refuses ends the start
 * with its `FILE:LINE:COL: message` line and exit code 2. It stops on SIGTERM or SIGINT.
 */
import { realpathSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { DEFAULTS } from "../../src/config/schema.js";
import { PddlContributor, loadPddlContribution, pddlFilesOf } from "../../src/agents/pddl-contribution/index.js";
import type { PddlImporter } from "../../src/agents/pddl-contribution/index.js";
import { ExampleAgent, SILENT_SCRIPT } from "./example-agent.js";
import type { ExampleAgentOptions } from "./example-agent.js";
import { MODELER_SCRIPT } from "./sample-problem.js";

/** What the program starts, or why it cannot (the line to print and the exit code). */
export type PreparedAgent = { ok: true; options: ExampleAgentOptions } | { ok: false; error: string; exitCode: number };

/** The agent's options from the command line and the environment; the PDDL pair, if any, read and imported now. */
export async function prepareExampleAgent(argv: readonly string[], env: NodeJS.ProcessEnv, importer?: PddlImporter): Promise<PreparedAgent> {
  let parsed: { values: { pddl: boolean }; positionals: string[] };
  try {
    parsed = parseArgs({ args: [...argv], allowPositionals: true, options: { pddl: { type: "boolean", default: false } } });
  } catch (err) {
    return { ok: false, error: `example-agent: ${(err as Error).message}`, exitCode: 2 };
  }
  const files = pddlFilesOf(parsed.values.pddl, parsed.positionals);
  if (files !== undefined && "error" in files) return { ok: false, error: `example-agent: ${files.error}`, exitCode: 2 };
  if (files === undefined && parsed.positionals.length > 0) return { ok: false, error: `example-agent: unexpected argument "${parsed.positionals[0]}"`, exitCode: 2 };
  const missing = ["XMPP_SERVICE", "XMPP_DOMAIN", "XMPP_USERNAME", "XMPP_PASSWORD", "MFR_ROOM"].filter((name) => !env[name]);
  if (missing.length > 0) return { ok: false, error: `example-agent: set ${missing.join(", ")} (see the header of examples/agents/run-example-agent.ts)`, exitCode: 2 };
  const nick = env.AGENT_NICK ?? "ExampleAgent";
  const base = { service: env.XMPP_SERVICE ?? "", domain: env.XMPP_DOMAIN ?? "", username: env.XMPP_USERNAME ?? "", password: env.XMPP_PASSWORD ?? "", room: env.MFR_ROOM ?? "", nick };
  if (files === undefined) return { ok: true, options: { ...base, script: MODELER_SCRIPT } };
  const loaded = await loadPddlContribution(files, importer);
  if (!loaded.ok) return { ok: false, error: loaded.error, exitCode: 2 };
  const contributor = new PddlContributor(loaded.contribution.turtle, { nick, maxStanzaBytes: DEFAULTS.maxStanzaBytes });
  return { ok: true, options: { ...base, script: SILENT_SCRIPT, contributor } };
}

// Run as a program (not when imported).
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  const prepared = await prepareExampleAgent(process.argv.slice(2), process.env);
  if (!prepared.ok) {
    process.stderr.write(`${prepared.error}\n`);
    process.exit(prepared.exitCode);
  }
  const agent = new ExampleAgent(prepared.options);
  const stop = (): void => void agent.stop().then(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  await agent.start();
}
