%%% Keeps the MFR protocol's messages in a room's archive (ejabberd 23.01).
%%%
%%% ejabberd archives a groupchat message (mod_mam, rooms with `mam: true`)
%%% only when it has a <body> or a subject, or carries a XEP-0334 <store/>
%%% hint, and keeps one as room history only when it has a body or subject.
%%% Peer agents send their protocol messages (contributions, proposals) as a
%%% Lingue <payload> with no body at all: without this module a room's archive
%%% gives none of them back to a coordinator that rejoins after a restart.
%%% This module adds the <store/> hint to such a message before mod_mam sees
%%% it. (The join-time history still leaves them out; the coordinator reads
%%% the archive after joining, so the archive is what counts.)
%%%
%%% Only messages that carry a Lingue payload are touched, and not those whose
%%% sender asked for them not to be kept (<no-store/>, <no-permanent-store/>):
%%% the coordinator asks that for the parts of a large model.
%%%
%%% Install: erlc -o DIR mod_muc_keep_protocol.erl; start ejabberd with DIR on
%%% its code path (`-pa DIR` in ERL_OPTIONS, /etc/ejabberd/ejabberdctl.cfg);
%%% and list `mod_muc_keep_protocol: {}` under `modules:`. See
%%% ejabberd/README-section.md.
-module(mod_muc_keep_protocol).
-behaviour(gen_mod).

-export([start/2, stop/1, reload/3, depends/2, mod_options/1, mod_doc/0]).
-export([muc_filter_message/3]).

-define(LINGUE, <<"http://purl.org/stuff/lingue/">>).
%% mod_mam archives at priority 50; lower runs first.
-define(PRIORITY, 40).

start(Host, _Opts) ->
    ejabberd_hooks:add(muc_filter_message, Host, ?MODULE, muc_filter_message, ?PRIORITY).

stop(Host) ->
    ejabberd_hooks:delete(muc_filter_message, Host, ?MODULE, muc_filter_message, ?PRIORITY).

reload(_Host, _NewOpts, _OldOpts) ->
    ok.

depends(_Host, _Opts) ->
    [{mod_mam, soft}].

mod_options(_Host) ->
    [].

mod_doc() ->
    #{desc => "Archives groupchat messages that carry a Lingue payload and no body."}.

%% The hint records of the xmpp library are {hint, Type}.
muc_filter_message(Pkt, _MUCState, _FromNick) when element(1, Pkt) == message ->
    Hinted = lists:any(fun(Type) -> xmpp:has_subtag(Pkt, {hint, Type}) end,
                       ['store', 'no-store', 'no-permanent-store']),
    case not Hinted andalso has_lingue_payload(Pkt) of
        true -> xmpp:append_subtags(Pkt, [{hint, 'store'}]);
        false -> Pkt
    end;
muc_filter_message(Acc, _MUCState, _FromNick) ->
    Acc.

has_lingue_payload(Pkt) ->
    lists:any(fun({xmlel, <<"payload">>, Attrs, _Children}) ->
                      proplists:get_value(<<"xmlns">>, Attrs) == ?LINGUE;
                 (_) ->
                      false
              end,
              xmpp:get_els(Pkt)).
