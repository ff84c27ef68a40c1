-- Prosody 0.12 for compose.yaml: the XMPP server beside the coordinator on a private
-- network. A starting point for a small deployment, not a hardened public server: it
-- accepts plain-text logins without TLS, which is acceptable only because nothing outside
-- the compose network can reach port 5222 (compose.yaml publishes no port). For a server
-- that others connect to, enable TLS (certificates) and set c2s_require_encryption = true.
--
-- Settings that matter to the coordinator (docs/operating.md, "Server configuration"):
--   c2s_stanza_size_limit  above the coordinator's mfr:maxStanzaBytes (200 KiB by default)
--   limits                 not loaded: its 10 KB/s default makes a 200 KB model take 20 s
--   smacks                 irrelevant: the coordinator never enables XEP-0198
--   gc, min_wait           a busy room's throughput (see local.cfg.lua for the figures)
--   muc_mam, muc_keep_protocol  what a room says while the coordinator restarts is given
--                          back to it (docs/operating.md, "Across an absence")
--   offline                loaded (the default): 1:1 commands sent while it restarts are
--                          kept for it and answered when it is back

admins = { }
interfaces = { "*" }
c2s_ports = { 5222 }
c2s_direct_tls_ports = { }
s2s_ports = { }
http_ports = { }
https_ports = { }
network_settings = { nagle = false, min_wait = 0 }

-- Runs in the foreground as the prosody user (compose.yaml), logging to the console.
data_path = "/var/lib/prosody"
log = { { levels = { min = "info" }, to = "console" } }

modules_enabled = {
  "roster"; "saslauth"; "disco"; "ping"; "posix"; "time"; "version"; "uptime";
}
-- mod_offline stays loaded (Prosody's default): a 1:1 command sent to the coordinator while
-- it restarts is kept and answered when it is back; disabled, such a command is lost.
modules_disabled = { "s2s"; "s2s_auth_certs" }
-- The project's own module (prosody/modules, mounted by compose.yaml).
plugin_paths = { "/etc/prosody/mfr-modules" }

c2s_require_encryption = false
allow_unencrypted_plain_auth = true
authentication = "internal_hashed"
storage = "internal"
allow_registration = false

c2s_stanza_size_limit = 256 * 1024
-- Throughput under load, as in local.cfg.lua (measured there): Lua's generational collector
-- (and min_wait = 0 in network_settings above). It needs Lua 5.4; on an older Lua, Prosody
-- logs "Failed to apply GC configuration" and runs with Lua's built-in collector settings.
gc = { mode = "generational" }

VirtualHost "localhost"

Component "conference.localhost" "muc"
  muc_room_locking = false
  muc_room_default_persistent = true
  muc_room_default_history_length = 0
  -- What a room says while the coordinator restarts is given back from the archive (docs/operating.md, "Across an absence").
  modules_enabled = { "muc_mam"; "muc_keep_protocol" }
  muc_log_by_default = false
  -- A catch-up reads the archive in pages of up to 250 (the default cap is 50); docs/operating.md, "Prosody".
  max_archive_query_results = 250
