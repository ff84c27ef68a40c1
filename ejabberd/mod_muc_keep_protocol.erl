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
%%% It also says so in the MUC service's disco#info, so that a coordinator knows
%%% that what agents say while it is away will be given back (without it, it
%%% asks again after an absence). ejabberd 23.01 lets a module add no feature to
%%% the MUC service or its rooms, so it is said as the FORM_TYPE of an extended
%%% information form (XEP-0128) of the service, which the coordinator reads too.
%%%
%%% Install: erlc -o DIR mod_muc_keep_protocol.erl; start ejabberd with DIR on
%%% its code path (`-pa DIR` in ERL_OPTIONS, /etc/ejabberd/ejabberdctl.cfg);
%%% and list `mod_muc_keep_protocol: {}` under `modules:`. See
%%% ejabberd/README-section.md.
-module(mod_muc_keep_protocol).
-behaviour(gen_mod).

-export([start/2, stop/1, reload/3, depends/2, mod_options/1, mod_doc/0]).
-export([muc_filter_message/3, disco_info/5]).

-define(LINGUE, <<"http://purl.org/stuff/lingue/">>).
-define(KEEPS_PROTOCOL, <<"http://purl.org/stuff/mfr/feature/keeps-protocol">>).
%% mod_mam archives at priority 50; lower runs first.
-define(PRIORITY, 40).
%% mod_disco answers the disco_info hook at 100 with its own form, dropping what came
%% before it; ours is added after it.
-define(DISCO_PRIORITY, 110).

start(Host, _Opts) ->
    ejabberd_hooks:add(muc_filter_message, Host, ?MODULE, muc_filter_message, ?PRIORITY),
    ejabberd_hooks:add(disco_info, Host, ?MODULE, disco_info, ?DISCO_PRIORITY).

stop(Host) ->
    ejabberd_hooks:delete(muc_filter_message, Host, ?MODULE, muc_filter_message, ?PRIORITY),
    ejabberd_hooks:delete(disco_info, Host, ?MODULE, disco_info, ?DISCO_PRIORITY).

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

%% The MUC service's disco#info (mod_muc runs this hook for its own node ""):
%% one more extended-information form, whose FORM_TYPE says that the service
%% keeps protocol messages. Decoded from its XML, so no record header is needed
%% to compile the module.
disco_info(Acc, _ServerHost, mod_muc, <<"">>, _Lang) ->
    Form = {xmlel, <<"x">>, [{<<"xmlns">>, <<"jabber:x:data">>}, {<<"type">>, <<"result">>}],
            [{xmlel, <<"field">>, [{<<"var">>, <<"FORM_TYPE">>}, {<<"type">>, <<"hidden">>}],
              [{xmlel, <<"value">>, [], [{xmlcdata, ?KEEPS_PROTOCOL}]}]}]},
    Acc ++ [xmpp:decode(Form)];
disco_info(Acc, _ServerHost, _Module, _Node, _Lang) ->
    Acc.

has_lingue_payload(Pkt) ->
    lists:any(fun({xmlel, <<"payload">>, Attrs, _Children}) ->
                      proplists:get_value(<<"xmlns">>, Attrs) == ?LINGUE;
                 (_) ->
                      false
              end,
              xmpp:get_els(Pkt)).
