import { z } from "zod";
import { isLoopback } from "../base/loopback.js";
import { leaseTimingProblem } from "./lease-timing.js";

/** A bare JID (local@domain), as used for rooms. */
const bareJid = z
  .string()
  .regex(/^[^@/\s]+@[^@/\s]+$/, "a bare JID such as room@conference.example.org");

const positiveMs = z.number().int("a whole number of milliseconds").positive("a positive number of milliseconds");

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

export const XmppAccountSchema = z.object({
  service: z
    .string()
    .regex(/^(xmpps?|wss?):\/\/[^\s/]+/, "a service URL such as xmpp://localhost:5222 (xmpp, xmpps, ws or wss)"),
  domain: z.string().regex(/^[^@/\s]+$/, "an XMPP domain such as example.org"),
  username: z.string().regex(/^[^@/\s]+$/, "a username without @ or /"),
  password: z.string().min(1, "a password (from the secrets file or XMPP_PASSWORD)"),
  resource: z.string().min(1, "a non-empty resource"),
  /** A second connection (resource `<resource> (chat)`) for 1:1 chat with people; see src/xmpp/direct-line.ts. */
  directLine: z.boolean().default(true),
});

export const MfrSettingsSchema = z.object({
  shapesPath: z.string().min(1, "a path to the SHACL shapes file"),
  contributionTimeoutMs: positiveMs,
  validationTimeoutMs: positiveMs,
  reasoningTimeoutMs: positiveMs,
  debateTimeoutMs: positiveMs,
  /** After the first answer in a window, this long without a new one closes it early. */
  quietPeriodMs: positiveMs,
  enableDebate: z.boolean(),
  maxFixRounds: z.number().int().min(0, "0 or more fix rounds").max(10, "at most 10 fix rounds"),
  /** Rounds in which proposers of invalid plans are asked to repair them. */
  maxRepairRounds: z.number().int().min(0, "0 or more repair rounds").max(10, "at most 10 repair rounds"),
  chairNick: z.string().min(1, "the Chair agent's nick"),
  /** The reference solver: plans longer than this are not searched for. */
  maxPlanSteps: z.number().int().min(1, "at least 1 step").max(200, "at most 200 steps"),
  /** The reference solver: how long one search may take. */
  planningTimeoutMs: positiveMs,
  /** Worker threads that parse and validate models; absent: one per core but one, at least one. */
  modelWorkers: z.number().int().min(1, "at least 1 worker").max(64, "at most 64 workers").optional(),
});

export const LimitsSchema = z.object({
  /** Largest stanza the coordinator will send; Prosody drops the sender's stream past its own limit. */
  maxStanzaBytes: z.number().int().min(4096, "at least 4096 bytes").max(16 * 1024 * 1024),
  /** Largest inbound payload (contribution, proposal) that is read at all. */
  maxInboundBytes: z.number().int().min(1024, "at least 1024 bytes"),
  /** Most triples one contribution may hold. */
  maxTriplesPerContribution: z.number().int().positive(),
  /** Most sessions that may be live at once. */
  maxLiveSessions: z.number().int().positive(),
  /** Most live sessions one person (one identity) may have started, so nobody can take every slot. */
  maxLiveSessionsPerPerson: z.number().int().positive(),
  /** Messages per sender per minute before the sender is throttled. */
  messagesPerMinute: z.number().int().positive(),
  /** Model jobs (checks, validations) that may wait for a free worker; more are refused with a reason. */
  maxQueuedModelJobs: z.number().int().positive().default(5000),
});

/**
 * The web view (src/web/): off unless a port is given (0: any free port); it listens on
 * loopback unless told otherwise, and beyond loopback only with a token.
 */
export const HttpSchema = z.object({
  port: z.number().int("a whole port number").min(0, "a port from 0 to 65535").max(65535, "a port from 0 to 65535").nullable(),
  host: z.string().min(1, "an address to listen on, such as 127.0.0.1"),
  token: z.string().min(16, "a token of at least 16 characters").nullable(),
});

/**
 * Several coordinator instances on one PostgreSQL database: each room unit (the primary room
 * with its log and phase rooms, or one of `rooms`) is owned by one instance at a time, by a
 * lease (src/fleet/). The lease timing is settable for tests; the shipped values are measured.
 */
export const SharedSchema = z
  .object({
    /** postgres:// URL (mfr:database, MFR_DATABASE_URL); null: the embedded SQLite store. */
    database: z
      .string()
      .regex(/^postgres(ql)?:\/\//, "a postgres:// URL")
      .nullable(),
    /** Most room units one instance owns at once (mfr:maxRoomsPerInstance); null: all. */
    maxRoomsPerInstance: z.number().int().positive("a positive number of rooms").nullable(),
    /** Further room units, each a primary room of its own without log or phase rooms (mfr:rooms, MFR_ROOMS). */
    rooms: z.array(bareJid),
    /** This instance's name in the leases and its XMPP resource (MFR_INSTANCE_ID); null: host name, process id and a random part. */
    instanceId: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, "letters, digits, dot, dash or underscore, at most 64").nullable(),
    leaseMs: z.number().int().positive(),
    renewMs: z.number().int().positive(),
    marginMs: z.number().int().nonnegative(),
  })
  .superRefine((s, ctx) => {
    const problem = leaseTimingProblem(s);
    if (problem) ctx.addIssue({ code: "custom", message: problem.message, path: [problem.field] });
  });

export type SharedSettings = z.infer<typeof SharedSchema>;

/**
 * The MFR phase rooms (agent:mfrRooms): each also receives its phase's protocol messages,
 * and agents there may contribute and propose. Two phases may share a room.
 */
export const PhaseRoomsSchema = z.object({
  construct: bareJid.nullable(),
  validate: bareJid.nullable(),
  reason: bareJid.nullable(),
});

export const ConfigSchema = z
  .object({
    profilePath: z.string(),
    secretsPath: z.string().nullable(),
    nick: z.string().min(1, "the coordinator's room nick").regex(/^[^\s/]/, "a nick that does not start with a space or /"),
    xmpp: XmppAccountSchema,
    room: bareJid,
    logRoom: bareJid.nullable(),
    mfr: MfrSettingsSchema,
    limits: LimitsSchema,
    /** Agent nicks (or bare JIDs) whose commands are obeyed; all other agents' commands are refused. */
    commandAllowList: z.array(z.string().min(1)),
    /** When non-empty, only these nicks (or bare JIDs) may send protocol input. */
    protocolAllowList: z.array(z.string().min(1)),
    dataDir: z.string().min(1),
    /** Where the profiles of peer agents (the catalog) are read from. */
    /** Where peer agents' profiles are read (mfr:agentsDir); null: none, agents are known from the room. */
    agentsDir: z.string().min(1).nullable(),
    /** Archived sessions older than this, or beyond the newest `maxCount`, are pruned. */
    retention: z.object({
      maxAgeDays: z.number().int().positive("a positive number of days"),
      maxCount: z.number().int().positive("a positive number of sessions"),
    }),
    logLevel: z.enum(LOG_LEVELS, { error: `one of ${LOG_LEVELS.join(", ")}` }),
    // None unless given, so a configuration built in code (the demo) need not mention them.
    phaseRooms: PhaseRoomsSchema.default({ construct: null, validate: null, reason: null }),
    http: HttpSchema.default({ port: null, host: "127.0.0.1", token: null }),
    /** Several instances on one PostgreSQL database (docs/operating.md, "Running several coordinators"); off unless `database` is set. */
    shared: SharedSchema.default({ database: null, maxRoomsPerInstance: null, rooms: [], instanceId: null, leaseMs: 6000, renewMs: 2000, marginMs: 1000 }),
  })
  .superRefine((config, ctx) => {
    // Anyone who can reach a public address could read every session: a token is required there.
    if (config.http.port !== null && !isLoopback(config.http.host) && config.http.token === null) {
      ctx.addIssue({ code: "custom", path: ["http", "host"], message: "a loopback address (127.0.0.1) unless a token is set (http.token in the secrets file, or MFR_HTTP_TOKEN)" });
    }
    // A phase room that is the primary or log room would get every message twice, and the
    // log room's readers the protocol traffic it exists to keep out.
    const others = [
      { jid: config.room, name: "the primary room (agent:roomJid)" },
      { jid: config.logRoom, name: "the log room (agent:logRoomJid)" },
    ];
    for (const phase of ["construct", "validate", "reason"] as const) {
      const jid = config.phaseRooms[phase];
      const clash = jid ? others.find((o) => o.jid?.toLowerCase() === jid.toLowerCase()) : undefined;
      if (clash) ctx.addIssue({ code: "custom", path: ["phaseRooms", phase], message: `a room of its own, not ${clash.name}` });
    }
  });

export type Config = z.infer<typeof ConfigSchema>;
export type XmppAccount = z.infer<typeof XmppAccountSchema>;
export type MfrSettings = z.infer<typeof MfrSettingsSchema>;
export type Limits = z.infer<typeof LimitsSchema>;
export type PhaseRooms = z.infer<typeof PhaseRoomsSchema>;
export type HttpSettings = z.infer<typeof HttpSchema>;
/** A phase of a session that may have a room of its own. */
export type Phase = keyof PhaseRooms;

/** Defaults for every value the profile may leave out. */
export const DEFAULTS = {
  resource: "coordinator",
  directLine: true,
  shapesPath: "shapes/mfr-shapes.ttl",
  contributionTimeoutMs: 30_000,
  validationTimeoutMs: 10_000,
  reasoningTimeoutMs: 60_000,
  debateTimeoutMs: 60_000,
  quietPeriodMs: 5_000,
  enableDebate: true,
  maxFixRounds: 2,
  maxRepairRounds: 2,
  chairNick: "Chair",
  maxPlanSteps: 30,
  planningTimeoutMs: 20_000,
  // Safely below Prosody's default c2s_stanza_size_limit of 256 KiB.
  maxStanzaBytes: 200 * 1024,
  // Below Prosody's default c2s_stanza_size_limit of 256 KiB: a message between the two is
  // refused by us with a reply; above the server's limit the server drops the sender instead.
  maxInboundBytes: 224 * 1024,
  maxTriplesPerContribution: 100_000,
  maxLiveSessions: 50,
  maxLiveSessionsPerPerson: 5,
  messagesPerMinute: 120,
  maxQueuedModelJobs: 5000,
  dataDir: "./data",
  httpHost: "127.0.0.1",
  retentionMaxAgeDays: 90,
  retentionMaxCount: 10_000,
  logLevel: "info",
} as const;
