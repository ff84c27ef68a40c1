/**
 * Many rooms over a few coordinators on one PostgreSQL (src/fleet/): R rooms (default 300)
 * over 3 instances with the SHIPPED lease timing, on a throw-away Prosody and PostgreSQL
 * (src/localserver/). A person and a few instant agents sit in every room, each on one
 * connection; a session is started in a random room every `--pace` ms (default 200). After
 * a steady window, kill -9 of the instance with the most rooms; once its rooms are taken
 * over and it is back as a standby, of another (`--kills`, default 2).
 *
 * Prints rooms per instance, sessions/s, the takeover time per room (p50, max) and of all
 * the dead instance's rooms together, sessions lost, messages sent twice, contributions
 * missed, CPU per session (every coordinator together, and Prosody, over the steady window)
 * and while the rooms are idle,
 * resident memory per instance (idle, once every room was taken; and at the end), and one
 * last line with the figures the targets are about.
 *
 * Prints figures only; not a test (test/fleet/rooms.test.ts runs a small version).
 * Run: npm run build && node dist/bench/rooms.js [--rooms R] [--kills 1|2] [--pace MS]
 *   [--steady MS] [--gap MIN-MAX] [--agents N] [--triples N] [--busy N] [--max-rooms N]
 *   [--cli OTHER/dist/src/cli.js] [--seed N] [--log-level L]
 * Each instance's log is written to `coordinator.log` in its directory; ROOMS_BENCH_KEEP=1
 * keeps the directories (and says where).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ensureProsody, startLocalProsody } from "../src/localserver/index.js";
import { startTestPostgres } from "../src/localserver/postgres.js";
import { runRooms, type RoomsOptions } from "./rooms/run.js";
import { percentile } from "./support/figures.js";
import { seededRandom } from "./verification/prng.js";

function optionsFrom(argv: string[]): RoomsOptions & { seed: number } {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      rooms: { type: "string", default: "300" },
      kills: { type: "string", default: "2" },
      pace: { type: "string", default: "200" },
      steady: { type: "string", default: "20000" },
      gap: { type: "string", default: "1000-4000" },
      agents: { type: "string", default: "3" },
      triples: { type: "string", default: "100" },
      busy: { type: "string", default: "0" },
      "max-rooms": { type: "string" },
      cli: { type: "string" },
      seed: { type: "string" },
      "log-level": { type: "string", default: "info" },
    },
  });
  const gap = /^(\d+)-(\d+)$/.exec(values.gap);
  if (!gap || Number(gap[1]) > Number(gap[2])) throw new RangeError("--gap is MIN-MAX in ms, e.g. 1000-4000");
  const kills = Number(values.kills);
  if (kills < 1 || kills > 2) throw new RangeError("--kills is 1 or 2");
  const seed = values.seed === undefined ? Date.now() % 1_000_000 : Number(values.seed);
  return {
    rooms: Number(values.rooms),
    kills,
    paceMs: Number(values.pace),
    steadyMs: Number(values.steady),
    gapMs: [Number(gap[1]), Number(gap[2])],
    agents: Number(values.agents),
    triples: Number(values.triples),
    busy: Number(values.busy),
    ...(values.cli !== undefined ? { cli: values.cli } : {}),
    ...(values["max-rooms"] !== undefined ? { maxRoomsPerInstance: Number(values["max-rooms"]) } : {}),
    random: seededRandom(seed),
    logLevel: values["log-level"],
    say: (line) => console.error(line),
    seed,
  };
}


const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const mib = (x: number): string => `${x.toFixed(0)} MiB`;

function line(label: string, value: string, target: string, met?: boolean): void {
  const mark = met === undefined ? "" : met ? "  ok" : "  MISSED";
  console.log(`  ${label.padEnd(52)} ${value.padStart(22)}   target ${target}${mark}`);
}

async function main(): Promise<void> {
  const options = optionsFrom(process.argv.slice(2));
  const server = await startLocalProsody({ commands: await ensureProsody({ allowInstall: false }) });
  const postgres = await startTestPostgres();
  const dir = mkdtempSync(join(tmpdir(), "mfr-rooms-bench-"));
  const loadBefore = loadavg()[0] ?? 0;
  try {
    const f = await runRooms(server, postgres, dir, options);
    const loadAfter = loadavg()[0] ?? 0;
    console.log(
      `rooms: ${f.rooms} rooms over 3 instances on one PostgreSQL (shipped lease, at most ${options.maxRoomsPerInstance ?? Math.ceil(options.rooms / 2)} rooms each), a person and ${options.agents} instant agents in every room, ` +
        `a session every ${options.paceMs} ms in a random room; ${options.busy} busy loops beside it; seed ${options.seed}; load average ${loadBefore.toFixed(1)} before, ${loadAfter.toFixed(1)} after`,
    );
    line("rooms per instance", Object.values(f.roomsPerInstance).join(" / "), "—");
    line("resident memory per instance, idle (rooms owned)", Object.entries(f.idleRssMiB).map(([id, m]) => `${mib(m)} (${f.roomsPerInstance[id]})`).join(", "), "< 300 MiB at 100 rooms");
    line("resident memory per live instance at the end, peak", Object.values(f.endRssMiB).map((m) => `${mib(m.now)} / ${mib(m.peak)}`).join(", "), "—");
    line("sessions started / completed", `${f.started} / ${f.completed}`, "—");
    line("sessions/s over the run", f.sessionsPerSecond.toFixed(2), `started at ${(1000 / options.paceMs).toFixed(1)}/s`);
    const cpu = f.cpuPerSession;
    line("CPU while idle, coordinators / Prosody", `${f.idleCpuPerSecond.coordinator.toFixed(1)} / ${f.idleCpuPerSecond.prosody.toFixed(1)} ms/s`, "—");
    line(`CPU per session, coordinators / Prosody (${cpu.sessions} sessions)`, `${cpu.coordinator.toFixed(1)} / ${cpu.prosody.toFixed(1)} ms`, "coordinator ≤ Prosody", cpu.coordinator <= cpu.prosody);
    for (const [k, t] of f.takeovers.entries()) {
      const last = Math.max(...t.perRoomMs);
      line(`kill ${k + 1}: ${t.killed}'s ${t.rooms} rooms, per room p50 / max`, `${seconds(percentile(t.perRoomMs, 50))} / ${seconds(last)}`, "—");
      line(`kill ${k + 1}: all ${t.rooms} rooms taken over (p100)`, `${seconds(last)} (${t.perRoomMs.length} taken)`, "≤ 10 s", last <= 10_000 && t.perRoomMs.length === t.rooms);
      line(`kill ${k + 1}: taken by`, Object.entries(t.takenBy).map(([id, n]) => `${id} ${n}`).join(", "), "—");
    }
    line("sessions lost", String(f.lost), "0", f.lost === 0);
    line("messages sent twice (by origin-id)", String(f.sentTwice), "0", f.sentTwice === 0);
    line("sessions completed twice", String(f.completedTwice), "0", f.completedTwice === 0);
    line("contributions missed", `${f.missed} of ${f.contributions}`, "0", f.missed === 0);
    for (const d of f.details) console.log(`  ${d}`);
    const worst = f.takeovers.reduce((w, t) => (Math.max(...t.perRoomMs) > Math.max(...w.perRoomMs) ? t : w), f.takeovers[0] ?? { rooms: 0, perRoomMs: [Number.NaN] });
    const rss = Math.max(...Object.values(f.endRssMiB).map((m) => m.now), ...Object.values(f.idleRssMiB));
    console.log(
      `rooms: ${f.rooms} rooms, 3 instances: takeover of ${worst.rooms} rooms p100 ${(Math.max(...worst.perRoomMs) / 1000).toFixed(1)} s; ${f.lost} lost, ${f.sentTwice} twice; ` +
        `CPU per session ${cpu.coordinator.toFixed(1)} ms (Prosody ${cpu.prosody.toFixed(1)} ms); RSS per instance ${rss.toFixed(0)} MiB`,
    );
  } finally {
    await postgres.stop();
    await server.stop();
    if (!process.env.ROOMS_BENCH_KEEP) rmSync(dir, { recursive: true, force: true });
    else console.log(`instance logs kept in ${dir}`);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
