/**
 * Slow agents, as an operator meets them: two sessions one after the other with the shipped
 * windows (contributions 30 s, quiet period 5 s), a fast agent ("cheater", answers every
 * request at once) and a slow one ("modeler", answers 12 s after each request, as an agent
 * that writes its model with a language model does). Neither has a profile; `--disco` has
 * the slow one advertise Lingue features in disco#info. Agents send without a body, as the
 * existing peers do.
 *
 * Prints, per session, whose contributions the model was made of, how the contribution window
 * closed (log `closedBy`, and whom it still missed), and what the slow agent was told when its
 * answer came late. Not a test: a scenario to compare builds (`--cli PATH` runs another build).
 *
 * Run: npm run build && node dist/bench/slow-agents.js [--cli PATH/TO/dist/src/cli.js] [--disco] [--slow-ms N]
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { xml } from "@xmpp/client";
import { ensureProsody, startLocalProsody, type LocalProsody } from "../src/localserver/index.js";
import { writeLocalAgentProfile } from "../src/localserver/agent-profile.js";
import { LINGUE, LINGUE_FEATURES, MFR, Mode } from "../src/base/vocab.js";
import { Occupant, type Element } from "./support/occupant.js";

const FAST_MODEL = `@prefix mfr: <http://purl.org/stuff/mfr/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
<#truck> a mfr:Entity ; mfr:entityType "Vehicle" ; rdfs:label "the truck" .
<#drive> a mfr:Action ; mfr:actionName "drive" .
<#delivered> a mfr:Goal ; rdfs:label "goods delivered" .
`;
const SLOW_MODEL = `@prefix mfr: <http://purl.org/stuff/mfr/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
<#depot> a mfr:Entity ; mfr:entityType "Location" ; rdfs:label "the depot" .
<#warehouse> a mfr:Entity ; mfr:entityType "Location" ; rdfs:label "the warehouse" .
`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function payloadOf(stanza: Element): Record<string, unknown> | undefined {
  const payload = stanza.getChild("payload", LINGUE);
  if (!payload || payload.attrs.mode !== Mode.ModelNegotiation) return undefined;
  try {
    return JSON.parse(payload.text()) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

function contribution(room: string, sessionId: string, turtle: string): Element {
  return xml("message", { to: room, type: "groupchat" }, xml("payload", { xmlns: LINGUE, mode: Mode.ModelFirstRDF, mime: "text/turtle" }, turtle), xml("sessionId", { xmlns: LINGUE }, sessionId));
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
    mfrConfig: `mfr:dataDir "${join(dir, "data")}" ; mfr:enableDebate false ;`,
  });
  return spawn(process.execPath, [cli, "start", "--profile", profile, "--secrets", secrets], {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", LOG_LEVEL: "info" },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

function logLines(child: ChildProcess, into: Array<Record<string, unknown>>): void {
  let carry = "";
  child.stdout?.on("data", (d: Buffer) => {
    const lines = (carry + d.toString()).split("\n");
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

async function until(what: string, check: () => boolean, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { cli: { type: "string" }, disco: { type: "boolean" }, "slow-ms": { type: "string", default: "12000" } } });
  const slowMs = Number(values["slow-ms"]);
  const cli = values.cli ?? fileURLToPath(new URL("../src/cli.js", import.meta.url));
  const server = await startLocalProsody({ commands: await ensureProsody({ allowInstall: false }) });
  const dir = mkdtempSync(join(tmpdir(), "mfr-slow-agents-"));
  const room = `slow@${server.mucDomain}`;
  const accounts = ["coordinator", "alice", "cheater", "modeler"].map((name) => ({ username: `${name}-slow`, password: `pw-${name}` }));
  for (const a of accounts) await server.register(a.username, a.password);
  const [coordinatorAccount, aliceAccount, cheaterAccount, modelerAccount] = accounts;
  if (!coordinatorAccount || !aliceAccount || !cheaterAccount || !modelerAccount) throw new Error("no accounts");
  const logs: Array<Record<string, unknown>> = [];
  const coordinator = startCoordinator(cli, server, dir, coordinatorAccount, room);
  logLines(coordinator, logs);
  await until("the coordinator in the room", () => logs.some((l) => l.msg === "joined the room"));
  await sleep(500);

  const alice = new Occupant(server, aliceAccount.username, aliceAccount.password, room, "alice");
  const cheater = new Occupant(server, cheaterAccount.username, cheaterAccount.password, room, "cheater");
  const modeler = new Occupant(server, modelerAccount.username, modelerAccount.password, room, "modeler");
  if (values.disco) {
    modeler.xmpp.iqCallee.get("http://jabber.org/protocol/disco#info", "query", () =>
      xml("query", { xmlns: "http://jabber.org/protocol/disco#info" }, xml("identity", { category: "client", type: "bot" }), ...LINGUE_FEATURES.map((f) => xml("feature", { var: f }))),
    );
  }
  const heard: Array<Record<string, unknown>> = [];
  alice.onMessage = (stanza) => {
    const p = payloadOf(stanza);
    if (p) heard.push(p);
  };
  const answer = (agent: Occupant, turtle: string, afterMs: number) => (stanza: Element) => {
    const p = payloadOf(stanza);
    if (p?.messageType !== `${MFR}ModelContributionRequest` || stanza.getChild("delay", "urn:xmpp:delay")) return;
    setTimeout(() => void agent.xmpp.send(contribution(room, String(p.sessionId), turtle)).catch(() => undefined), afterMs);
  };
  cheater.onMessage = answer(cheater, FAST_MODEL, 50);
  modeler.onMessage = answer(modeler, SLOW_MODEL, slowMs);
  const told: string[] = [];
  modeler.onDirect = (stanza) => told.push(stanza.getChildText("body") ?? "");
  for (const o of [alice, cheater, modeler]) await o.join();
  await sleep(1000);

  console.log(`slow agents: ${cli}; the slow agent answers ${slowMs} ms after each request${values.disco ? " and advertises Lingue features" : ""}; shipped windows`);
  for (const n of [1, 2]) {
    await alice.xmpp.send(xml("message", { to: room, type: "groupchat" }, xml("body", {}, `mfr-start Deliver goods from the depot (session ${n})`)));
    await until(`session ${n}'s request`, () => heard.filter((p) => p.messageType === `${MFR}ModelContributionRequest`).length >= n);
    const sessionId = String(heard.filter((p) => p.messageType === `${MFR}ModelContributionRequest`)[n - 1]?.sessionId);
    await until(`session ${n}'s end`, () => heard.some((p) => p.messageType === `${MFR}SessionComplete` && p.sessionId === sessionId));
    // The slow agent's answer, if it came late, is told within its thinking time.
    await sleep(slowMs + 1000);
    const complete = heard.find((p) => p.messageType === `${MFR}SessionComplete` && p.sessionId === sessionId) ?? {};
    const contributors = String(complete.summary ?? "").split("\n").filter((l) => /^ {2}\w+: /.test(l)).map((l) => l.trim().split(":")[0]);
    const closed = logs.find((l) => l.msg === "contribution window closed" && l.sessionId === sessionId);
    const late = told.filter((t) => t.includes(sessionId));
    console.log(`  session ${n} (${sessionId}): ${String(complete.status)}; model from ${contributors.join(" and ") || "nobody"}; window closed by ${String(closed?.closedBy)}${Array.isArray(closed?.missing) && closed.missing.length ? `, missing ${closed.missing.join(", ")}` : ""}${late.length ? `; the slow agent was told: "${late[0]}"` : ""}`);
  }
  coordinator.kill("SIGKILL");
  for (const o of [alice, cheater, modeler]) await o.stop();
  await server.stop();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
