-- Prosody 0.12 config for a throw-away server on loopback: used by `npm run demo` and by
-- the integration tests (src/localserver/ starts it). Why each setting is here is said beside
-- it (every one was measured); docs/operating.md, "Prosody", sums them up.
--
-- Environment (Prosody exposes environment variable X as ENV_X):
--   PROSODY_TEST_DIR        absolute directory for pid file, log and data (required)
--   PROSODY_TEST_PORT       c2s port on 127.0.0.1 (default 15222)
--   PROSODY_STANZA_LIMIT    c2s_stanza_size_limit in bytes (default 256 KiB); over it the
--                           server closes the SENDER's stream (policy-violation)
--   PROSODY_OCCUPANT_ID     "0" turns off XEP-0421 occupant ids in rooms (default on, as
--                           Prosody ships), to test a server that gives none
--   PROSODY_PLUGIN_DIR      absolute path of prosody/modules (the launcher sets it): the
--                           project's own module that keeps protocol messages as history
--   PROSODY_MUC_MAM         "0" leaves rooms unarchived (no mod_muc_mam): a room's history is
--                           then only what it keeps in memory, lost with a server restart
--   PROSODY_KEEP_PROTOCOL   "0" leaves the project's module out: a stock server, which keeps
--                           no message without a body (agents' protocol messages) as history
--   PROSODY_HISTORY_LENGTH  muc_room_default_history_length (default 0: rooms the
--                           coordinator creates set their own; others keep none)
--   PROSODY_SMACKS          "1" loads mod_smacks (XEP-0198 stream management with
--                           resumption), as ejabberd offers by default; default off
--   PROSODY_SMACKS_HIBERNATION  seconds a dropped resumable session is kept (default 600)

local dir   = assert(ENV_PROSODY_TEST_DIR, "set PROSODY_TEST_DIR to an absolute directory")
local port  = tonumber(ENV_PROSODY_TEST_PORT or "15222")
local limit = tonumber(ENV_PROSODY_STANZA_LIMIT or "") or 256 * 1024
if ENV_PROSODY_PLUGIN_DIR then plugin_paths = { ENV_PROSODY_PLUGIN_DIR } end

-- Containers run us as root; without this 0.12.3 logs "Refusing to run as root" and hangs.
run_as_root  = true
pidfile      = dir .. "/prosody.pid"
data_path    = dir .. "/data"   -- Prosody does not create it: the launcher does.
certificates = dir
log = { { levels = { min = "info" }, to = "file", filename = dir .. "/prosody.log" } }

interfaces = { "127.0.0.1" }
c2s_ports = { port }
c2s_direct_tls_ports = { }
s2s_ports = { }
component_ports = { }
http_ports = { }
https_ports = { }

-- Nagle off: a round trip through a room drops from ~44 ms to < 1 ms.
-- min_wait = 0: a connection with more to read than one read takes (4 KiB) is paused for a
-- turn of the event loop, and 0.12 makes every such turn wait at least min_wait (1 ms) when
-- nothing else is ready: in a burst of sessions clients queued megabytes the server had not
-- read, and it ran at 31 sessions/s while 40% idle; without the wait, 48-49/s
-- (bench/load.ts). Larger reads (network_default_read_size) did as well for the burst but
-- made a ping wait up to 120 ms behind a 100k-triple model's parts (bench/stalls.ts);
-- this keeps it under 40 ms. The cost: while a timer is due within 1 ms (such a pause),
-- the loop polls without sleeping until it fires; an idle server uses no CPU.
network_settings = { nagle = false, min_wait = 0 }

admins = { "admin@localhost" }

-- Deliberately NOT loaded:
--   smacks  (by default: the coordinator never enables XEP-0198; PROSODY_SMACKS=1 offers
--            it, to test that a server offering it changes nothing)
--   limits  (Debian's stock 10 KB/s client rate limit makes a 200 KB payload take 20 s)
modules_enabled = {
  "roster"; "saslauth"; "disco"; "ping"; "register"; "posix"; "time"; "version"; "uptime";
}
-- mod_offline (XEP-0160) is loaded, as Prosody loads it by default: a 1:1 command sent to
-- the coordinator's bare JID while it is down (a restart, a kill -9) is kept, and handed to
-- it, stamped, when it comes back; it answers then (docs/operating.md, "Across an absence").
-- Without it the server refuses such a message (service-unavailable) and it is lost.
modules_disabled = { "s2s"; "s2s_auth_certs" }
-- (The config sandbox has no `table` library: the list is written out twice.)
if ENV_PROSODY_SMACKS == "1" then
  modules_enabled = {
    "roster"; "saslauth"; "disco"; "ping"; "register"; "posix"; "time"; "version"; "uptime"; "smacks";
  }
  smacks_hibernation_time = tonumber(ENV_PROSODY_SMACKS_HIBERNATION or "") or 600
end

c2s_require_encryption = false
allow_unencrypted_plain_auth = true
authentication = "internal_hashed"
-- Must be set before users are created: SCRAM login 15 ms instead of 0.4–0.8 s.
default_iteration_count = 128
storage = "internal"
-- XEP-0077 in-band registration (the launcher registers test accounts this way).
allow_registration = true
-- No registration throttle applies: mod_register_limits allowlists 127.0.0.1 by default.
-- (Do not set min_seconds_between_registrations = 0: 0 is true in Lua and enables one.)

c2s_stanza_size_limit = limit

-- Lua's generational collector instead of 0.12's default incremental one with a 105%
-- pause, which collects nearly all the time when a room fans large stanzas out: Prosody's
-- CPU for one session's messages fell from 34 to 16 ms (bench/load.ts), and a ping behind a
-- 100k-triple model's parts waits no longer than before (bench/stalls.ts).
gc = { mode = "generational" }

VirtualHost "localhost"

Component "conference.localhost" "muc"
  -- Otherwise other users get item-not-found until the creator submits the config form.
  muc_room_locking = false
  -- Rooms nobody configures keep no history and vanish with their last occupant; the
  -- coordinator configures a room it creates as persistent, with a history of 200 messages
  -- and archived (docs/operating.md, "Durability"), so what is said while it restarts is given back.
  muc_room_default_persistent = false
  muc_room_default_history_length = tonumber(ENV_PROSODY_HISTORY_LENGTH or "") or 0
  muc_occupant_id = ENV_PROSODY_OCCUPANT_ID ~= "0"
  -- XEP-0313 for rooms: the history given back at a join then comes from the archive (on disk,
  -- so it outlives a server restart) and carries the room's stanza-ids (XEP-0359).
  -- Peer agents send protocol messages without a <body>, which Prosody would not keep as
  -- history; modules/mod_muc_keep_protocol.lua keeps them (docs/operating.md, "Prosody").
  if ENV_PROSODY_MUC_MAM ~= "0" and ENV_PROSODY_KEEP_PROTOCOL ~= "0" then
    modules_enabled = { "muc_mam"; "muc_keep_protocol" }
  elseif ENV_PROSODY_MUC_MAM ~= "0" then
    modules_enabled = { "muc_mam" }
  elseif ENV_PROSODY_KEEP_PROTOCOL ~= "0" then
    modules_enabled = { "muc_keep_protocol" }
  else
    modules_enabled = { }
  end
  -- Archiving is switched on per room (the coordinator does it for rooms it creates).
  muc_log_by_default = false
  -- A catch-up (after a restart, or a takeover among several instances) reads the archive
  -- page by page, and on the internal storage every page costs in proportion to the whole
  -- room archive: 50 a page (the default cap) made a takeover's catch-up of ~300 messages
  -- take 11 s on a room with 10,000 archived (bench/failover.ts). The coordinator asks 250.
  max_archive_query_results = 250
