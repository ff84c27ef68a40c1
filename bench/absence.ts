/**
 * An absence, as an operator meets it: a formal session is running (contribution window
 * 20 s); the coordinator is killed with -9 two seconds after its request and started again
 * seven seconds later, as systemd would. One agent contributed a single entity before the
 * kill; another contributes the whole formal model (Blocksworld, test/fixtures/formal/) six
 * seconds after the request, while no coordinator is listening; a third proposes a plan that
 * breaks the model at its second step and claims success. Agents send their protocol messages
 * without a body, as the existing peers do.
 *
 * Prints what became of the session: its status, whether the model solvers were sent has the
 * formal part, the verdict on the plan, and what the coordinator said about catching up.
 * The agent with the formal model takes 6 s to answer each request it hears, as an agent
 * that thinks does, so a request asked again after the absence is answered too.
 * `--no-kill` runs the same session without the kill: the outcome an absence must not change.
 * `--stock` runs it on a stock Prosody (archive and a history of 20, but not the project's
 * module), which keeps no message without a body: the late contribution is then kept nowhere.
 * The quiet period is 10 s: with the shipped 5 s, builds before the quiet period spared the
 * agents the coordinator expects closed the window (early, after the first answer) before the
 * late contribution, with or without a kill.
 * Not a test: a scenario to compare builds.
 *
 * Run: npm run build && node dist/bench/absence.js [--cli PATH/TO/dist/src/cli.js] [--no-kill] [--stock]
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { xml } from "@xmpp/client";
import { ensureProsody, startLocalProsody, type LocalProsody } from "../src/localserver/index.js";
import { writeLocalAgentProfile } from "../src/localserver/agent-profile.js";
import { LINGUE, MFR, Mode } from "../src/base/vocab.js";
import { Occupant, type Element } from "./support/occupant.js";

const REQUEST_TO_KILL_MS = 2000;
const DOWN_MS = 7000;
const REQUEST_TO_LATE_CONTRIBUTION_MS = 6000;
const FORMAL_MODEL = readFileSync(fileURLToPath(new URL("../../test/fixtures/formal/blocksworld.ttl", import.meta.url)), "utf8");
const ONE_ENTITY = `@prefix mfr: <http://purl.org/stuff/mfr/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
<#robot> a mfr:Entity ; mfr:entityType "Robot" ; rdfs:label "the robot arm" .
`;
/** Invalid at step 2: with C lifted off A the hand is full, so A cannot be picked up. */
const BAD_PLAN = ["unstack(C, A)", "pick-up(a)", "stack(a, b)"];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function payloadOf(stanza: Element): { type: string; json: Record<string, unknown> } | undefined {
  const payload = stanza.getChild("payload", LINGUE);
  if (!payload || payload.attrs.mode !== Mode.ModelNegotiation) return undefined;
  try {
    const json = JSON.parse(payload.text()) as Record<string, unknown>;
    return { type: String(json.messageType ?? ""), json };
  } catch {
    return undefined;
  }
}

/** A protocol message as the existing peers send it: a payload and a sessionId, no body. */
function protocolMessage(room: string, mode: string, mime: string, content: string, sessionId?: string): Element {
  return xml("message", { to: room, type: "groupchat" }, xml("payload", { xmlns: LINGUE, mode, mime }, content), ...(sessionId ? [xml("sessionId", { xmlns: LINGUE }, sessionId)] : []));
}

function startCoordinator(cli: string, server: LocalProsody, dir: string, account: { username: string; password: string }, room: string): ChildProcess {
  const { profile, secrets } = writeLocalAgentProfile(dir, {
    node: "coordinator",
    nick: "Coordinator",
    server,
    account,
    passwordKey: "coordinator",
    resource: "Coordinator",
    room,
    mfrConfig: `mfr:dataDir "${join(dir, "data")}" ; mfr:enableDebate false ; mfr:contributionTimeout 20000 ; mfr:quietPeriod 10000 ; mfr:reasoningTimeout 8000 ;`,
  });
  return spawn(process.execPath, [cli, "start", "--profile", profile, "--secrets", secrets], {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", LOG_LEVEL: "info" },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

function logLines(child: ChildProcess, into: Array<Record<string, unknown>>): void {
  let carry = "";
  child.stdout?.on("data", (d: Buffer) => {
    const text = carry + d.toString();
    const lines = text.split("\n");
    carry = lines.pop() ?? "";
    for (const line of lines) {
      try {
        into.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // not a log line
      }
    }
  });
  child.stderr?.resume();
}

async function until(what: string, check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { cli: { type: "string" }, "no-kill": { type: "boolean" }, stock: { type: "boolean" } } });
  const kill = values["no-kill"] !== true;
  const stock = values.stock === true;
  const cli = values.cli ?? fileURLToPath(new URL("../src/cli.js", import.meta.url));
  const server = await startLocalProsody({ commands: await ensureProsody({ allowInstall: false }), ...(stock ? { keepProtocol: false, historyLength: 20 } : {}) });
  const dir = mkdtempSync(join(tmpdir(), "mfr-absence-"));
  const room = `absence@${server.mucDomain}`;
  const accounts = ["coordinator", "alice", "modeler", "planner", "solver"].map((name) => ({ username: `${name}-absence`, password: `pw-${name}` }));
  for (const a of accounts) await server.register(a.username, a.password);
  const [coordinatorAccount, ...people] = accounts;
  if (!coordinatorAccount) throw new Error("no account");
  const logs: Array<Record<string, unknown>> = [];
  let coordinator = startCoordinator(cli, server, dir, coordinatorAccount, room);
  logLines(coordinator, logs);
  await until("the coordinator in the room", () => logs.some((l) => l.msg === "joined the room"));
  await sleep(500);

  const [alice, modeler, planner, solver] = people.map((a, i) => new Occupant(server, a.username, a.password, room, ["alice", "modeler", "planner", "solver"][i] ?? "x"));
  if (!alice || !modeler || !planner || !solver) throw new Error("no occupants");
  const heard: Array<{ type: string; json: Record<string, unknown> }> = [];
  alice.onMessage = (stanza) => {
    const p = payloadOf(stanza);
    if (p) heard.push(p);
  };
  let sessionId = "";
  // Each request heard (the first, and any asked again) is answered with the formal model 6 s later.
  let requestsHeard = 0;
  planner.onMessage = (stanza) => {
    const p = payloadOf(stanza);
    if (p?.type !== `${MFR}ModelContributionRequest` || stanza.getChild("delay", "urn:xmpp:delay")) return;
    requestsHeard++;
    setTimeout(() => void planner.xmpp.send(protocolMessage(room, Mode.ModelFirstRDF, "text/turtle", FORMAL_MODEL, String(p.json.sessionId))).catch(() => undefined), REQUEST_TO_LATE_CONTRIBUTION_MS);
  };
  solver.onMessage = (stanza) => {
    const p = payloadOf(stanza);
    if (p?.type === `${MFR}SolutionRequest`) {
      const proposal = JSON.stringify({ messageType: `${MFR}SolutionProposal`, sessionId, solution: { success: true, message: "Done in three moves.", plan: BAD_PLAN } });
      void solver.xmpp.send(protocolMessage(room, Mode.ModelNegotiation, "application/json", proposal));
    }
  };
  for (const o of [alice, modeler, planner, solver]) await o.join();
  for (const o of [modeler, planner, solver]) await o.xmpp.send(protocolMessage(room, Mode.HumanChat, "text/plain", `${o.nick} ready`));
  await sleep(300);

  await alice.say("mfr-start Put block A on block B, with C on the table; nothing may sit on C");
  await until("the request", () => heard.some((p) => p.type === `${MFR}ModelContributionRequest`));
  const requestAt = Date.now();
  sessionId = String(heard.find((p) => p.type === `${MFR}ModelContributionRequest`)?.json.sessionId);
  await modeler.xmpp.send(protocolMessage(room, Mode.ModelFirstRDF, "text/turtle", ONE_ENTITY, sessionId));

  await sleep(requestAt + REQUEST_TO_KILL_MS - Date.now());
  if (kill) coordinator.kill("SIGKILL");
  await sleep(requestAt + REQUEST_TO_KILL_MS + DOWN_MS - Date.now());
  const before = kill ? logs.length : 0;
  if (kill) {
    coordinator = startCoordinator(cli, server, dir, coordinatorAccount, room);
    logLines(coordinator, logs);
  }

  await until("SessionComplete", () => heard.some((p) => p.type === `${MFR}SessionComplete`), 60_000);
  const request = heard.filter((p) => p.type === `${MFR}SolutionRequest`).at(-1)?.json;
  const complete = heard.find((p) => p.type === `${MFR}SessionComplete`)?.json ?? {};
  const solutions = (complete.solutions ?? []) as Array<{ agent: string; verification?: { verdict?: string; step?: number } }>;
  const after = logs.slice(before);
  const said = (msg: string) => after.filter((l) => typeof l.msg === "string" && l.msg.startsWith(msg));
  const repeats = heard.filter((p) => p.json.repeat === true).map((p) => String(p.type).replace(MFR, ""));
  console.log(`absence: ${cli}${kill ? "" : " (no kill)"}${stock ? " on a stock Prosody (no muc_keep_protocol)" : ""}`);
  console.log(`  session ${sessionId}: ${String(complete.status)}${complete.reason ? ` (${String(complete.reason)})` : ""}`);
  console.log(`  model sent to solvers: ${request ? `${String(request.model).length} characters, formal part ${/initialState/.test(String(request.model)) ? "yes" : "no"}` : "none"}`);
  for (const s of solutions) console.log(`  proposal from ${s.agent}: ${s.verification?.verdict ?? "not checked"}${s.verification?.step !== undefined ? ` at step ${s.verification.step}` : ""}`);
  console.log(`  contributions accepted${kill ? " after the restart" : ""}: ${said("contribution accepted").map((l) => String(l.agent)).join(", ") || "none"}`);
  console.log(`  caught up: ${said("caught up on").map((l) => `${String(l.caughtUp)} message(s) from ${String(l.from ?? "?")} since ${String(l.since)}`).join("; ") || "nothing said"}`);
  console.log(`  gap said: ${said("may have missed").length > 0 ? "yes" : "no"}`);
  console.log(`  asked again: ${repeats.length > 0 ? repeats.join(", ") : "nothing"}; requests the modeller heard: ${requestsHeard}`);
  console.log(`  the last line: ${String(heard.length ? (complete.summary ?? "").toString().split("\n")[0] : "")}`);
  if (process.env.ABSENCE_LOG) for (const l of after) console.log(JSON.stringify(l));
  coordinator.kill("SIGKILL");
  for (const o of [alice, modeler, planner, solver]) await o.stop();
  await server.stop();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
