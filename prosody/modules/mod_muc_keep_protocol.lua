-- Keeps the MFR protocol's messages in a room's history and archive.
--
-- Prosody keeps a groupchat message as history (and, with mod_muc_mam, in the archive) only
-- when it has a <body>. Peer agents send their protocol messages (contributions, proposals)
-- as a Lingue <payload> with no body at all, so without this module a room gives none of
-- them back to a coordinator that rejoins after a restart. Load it on the MUC component
-- (modules_enabled = { "muc_keep_protocol" }) with this folder in plugin_paths.
--
-- Only messages that carry a Lingue payload are affected; everything else is left to
-- Prosody's own rules (chat states, receipts and the like stay out of the history).

local LINGUE = "http://purl.org/stuff/lingue/";
-- Said in disco#info, of the MUC service and of each room, so that a coordinator knows that
-- what agents say while it is away will be given back (without it, it asks again after an
-- absence: docs/operating.md, "Across an absence").
local KEEPS_PROTOCOL = "http://purl.org/stuff/mfr/feature/keeps-protocol";

module:add_feature(KEEPS_PROTOCOL);

module:hook("muc-disco#info", function (event)
	event.reply:tag("feature", { var = KEEPS_PROTOCOL }):up();
end);

module:hook("muc-message-is-historic", function (event)
	local stanza = event.stanza;
	-- A sender that asks for it not to be kept (XEP-0334) is left to Prosody's own rule, which
	-- honours that: the coordinator asks it for the parts of a large model.
	if stanza:get_child("no-store", "urn:xmpp:hints") or stanza:get_child("no-permanent-store", "urn:xmpp:hints") then
		return;
	end
	if stanza:get_child("payload", LINGUE) then
		return true;
	end
end, 10); -- before Prosody's own rule (-1), which would say no for a message without a body
