#!/usr/bin/env python3
"""A MINIMAL MFR PEER AGENT in Python with slixmpp (an example for agent authors; see docs/agents.md).

It joins the room, answers every ModelContributionRequest with a small formal model (a box
to move from one shelf to another) and every SolutionRequest with a plan for it, and answers
a fix round or a repair round that names it. What it says is fixed; a real agent would build
its model and plan from the problem, and its fixes from the round's `issues`.

    sudo apt-get install -y python3-slixmpp        # Debian's slixmpp
    XMPP_SERVICE=xmpp://localhost:5222 XMPP_DOMAIN=localhost XMPP_USERNAME=shelver \
    XMPP_PASSWORD=... MFR_ROOM=mfr@conference.localhost AGENT_NICK=Shelver \
    /usr/bin/python3 examples/agents/minimal_agent.py

AGENT_START_WRONG=1 makes its first contribution break a rule of the shapes (a goal that says
nothing) and its first plan invalid (the shelves swapped), so that the coordinator asks it to
fix the model and to repair the plan; it then sends the sound model and the valid plan.

It stops on SIGTERM or SIGINT. Only the wire contract of docs/protocol.md is relied on.
"""
import asyncio
import json
import os
import signal
import sys
import xml.etree.ElementTree as ET
from urllib.parse import urlparse

try:
    import slixmpp
    from slixmpp.xmlstream.handler import Callback
    from slixmpp.xmlstream.matcher import MatchXPath
except ImportError:  # pragma: no cover - the message is the point
    sys.stderr.write("minimal_agent: slixmpp is missing: apt-get install -y python3-slixmpp\n")
    sys.exit(3)

LINGUE = "http://purl.org/stuff/lingue/"
MFR = "http://purl.org/stuff/mfr/"
MODE_NEGOTIATION = LINGUE + "ModelNegotiation"
MODE_RDF = LINGUE + "ModelFirstRDF"
MODE_CHAT = LINGUE + "HumanChat"

# The model this agent contributes: relative IRIs, so another agent's <#box> is the same node.
# The initial state hangs on the state variable <#where>: any subject may carry mfr:initialState.
MODEL_WITHOUT_GOAL = """@prefix mfr: <http://purl.org/stuff/mfr/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
<#box> a mfr:Entity ; mfr:entityType "Box" ; rdfs:label "the box" .
<#shelfA> a mfr:Entity ; mfr:entityType "Shelf" ; rdfs:label "shelf A" .
<#shelfB> a mfr:Entity ; mfr:entityType "Shelf" ; rdfs:label "shelf B" .
<#where> a mfr:StateVariable ; rdfs:label "where the box is" ; mfr:initialState "(on box shelfA)" .
<#move> a mfr:Action ; mfr:actionName "move" ; mfr:hasParameter ( "?b - Box" "?from - Shelf" "?to - Shelf" ) ;
  mfr:hasPrecondition <#move-pre> ; mfr:hasEffect <#move-eff> .
<#move-pre> a mfr:Precondition ; mfr:expression "(and (on ?b ?from) (not (= ?from ?to)))" .
<#move-eff> a mfr:Effect ; mfr:expression "(and (on ?b ?to) (not (on ?b ?from)))" .
<#onePlace> a mfr:Constraint ; mfr:constraintType "invariant" ; mfr:appliesTo <#box> ;
  mfr:constraintExpression "(not (and (on box shelfA) (on box shelfB)))" .
"""
MINIMAL_MODEL = MODEL_WITHOUT_GOAL + '<#moved> a mfr:Goal ; rdfs:label "the box is on shelf B" ; mfr:expression "(on box shelfB)" .\n'
# A goal with no rdfs:label, rdfs:comment or mfr:expression is a Violation of the shapes.
WRONG_MODEL = MODEL_WITHOUT_GOAL + "<#moved> a mfr:Goal .\n"

# The plan: steps name an action by its mfr:actionName and objects by their symbols.
MINIMAL_PLAN = ["move(box, shelfA, shelfB)"]
# The shelves swapped: the box is not on shelf B, so the precondition fails at step 1.
WRONG_PLAN = ["move(box, shelfB, shelfA)"]


class MinimalAgent(slixmpp.ClientXMPP):
    def __init__(self, jid, password, room, nick, start_wrong):
        super().__init__(jid, password)
        self.room = slixmpp.JID(room).bare  # as slixmpp writes a sender's bare JID (lower case)
        self.nick = nick
        self.start_wrong = start_wrong
        self.seen = set()  # origin-ids already handled: a message sent again has the same one
        self.answered = set()  # (session, kind, round) already answered
        self.register_plugin("xep_0045")  # multi-user chat
        self.add_event_handler("session_start", self.on_start)
        # slixmpp's "groupchat_message" and "message" events fire only for messages with a
        # <body>; protocol messages need not have one. So match the Lingue payload itself.
        self.register_handler(Callback("MFR payload", MatchXPath(f"{{{self.default_ns}}}message/{{{LINGUE}}}payload"),
                                       self.on_payload))

    async def on_start(self, _event):
        self.send_presence()
        # No history: the agent answers what is asked from now on.
        await self.plugin["xep_0045"].join_muc_wait(self.room, self.nick, maxstanzas=0)
        # Any Lingue payload is evidence that this occupant is an agent.
        self.send_payload(f"{self.nick} is ready.", MODE_CHAT, "text/plain", f"{self.nick} ready")
        print(f"minimal_agent: {self.nick} joined {self.room}", flush=True)

    def on_payload(self, msg):
        if msg["type"] != "groupchat" or msg["from"].bare != self.room or msg["mucnick"] == self.nick:
            return  # not the room, or our own echo
        stanza = msg.xml
        if stanza.find("{urn:xmpp:delay}delay") is not None:
            return  # history from before we joined
        payload = stanza.find(f"{{{LINGUE}}}payload")
        if payload.get("mode") != MODE_NEGOTIATION:
            return  # a contribution, a status line, a validation report: nothing to answer
        origin = stanza.find("{urn:xmpp:sid:0}origin-id")
        if origin is not None:
            if origin.get("id") in self.seen:
                return
            self.seen.add(origin.get("id"))
        try:
            message = json.loads(payload.text or "")
        except ValueError:
            return
        kind = str(message.get("messageType") or payload.get("messageType") or "")
        session_id = str(message.get("sessionId", ""))
        round_ = int(message.get("round") or 1)
        # A fix or repair round names the agents it asks; the others stay quiet.
        asked = message.get("requestedAgents")
        if round_ > 1 and isinstance(asked, list) and self.nick not in asked:
            return
        what = {MFR + "ModelContributionRequest": "model", MFR + "SolutionRequest": "plan"}.get(kind)
        if what is None or not self.once(session_id, what, round_):
            return
        # What to fix: per agent nick, a list of sentences. A real agent would act on them.
        for issue in (message.get("issues") or {}).get(self.nick, []):
            print(f"minimal_agent: {self.nick} asked in {kind[len(MFR):]} round {round_}: {issue}", flush=True)
        wrong = self.start_wrong and round_ == 1
        if what == "model":
            body = "Fixed contribution" if round_ > 1 else "Model contribution"
            self.send_payload(f"{body} for {session_id}.", MODE_RDF, "text/turtle",
                              WRONG_MODEL if wrong else MINIMAL_MODEL, {"sessionId": session_id})
        else:
            solution = {"success": True, "message": "Move the box in one step.", "plan": WRONG_PLAN if wrong else MINIMAL_PLAN}
            proposal = {"messageType": MFR + "SolutionProposal", "sessionId": session_id, "solution": solution}
            self.send_payload(f"Solution proposal for {session_id}.", MODE_NEGOTIATION, "application/json",
                              json.dumps(proposal), {"sessionId": session_id}, MFR + "SolutionProposal")

    def once(self, session_id, kind, round_):
        key = (session_id, kind, round_)
        if key in self.answered:
            return False
        self.answered.add(key)
        return True

    def send_payload(self, body, mode, mime, content, siblings=None, message_type=None):
        msg = self.make_message(mto=self.room, mbody=body, mtype="groupchat")
        payload = ET.Element(f"{{{LINGUE}}}payload", {"mode": mode, "mime": mime})
        if message_type:
            payload.set("messageType", message_type)
        payload.text = content
        msg.append(payload)
        for name, value in (siblings or {}).items():
            sibling = ET.Element(f"{{{LINGUE}}}{name}")
            sibling.text = value
            msg.append(sibling)
        msg.send()


def required(name):
    value = os.environ.get(name)
    if not value:
        sys.stderr.write(f"minimal_agent: set {name} (see the header of examples/agents/minimal_agent.py)\n")
        sys.exit(2)
    return value


def main():
    service = urlparse(required("XMPP_SERVICE"))  # xmpp://host:port
    nick = os.environ.get("AGENT_NICK", "MinimalAgent")
    agent = MinimalAgent(f"{required('XMPP_USERNAME')}@{required('XMPP_DOMAIN')}/{nick}", required("XMPP_PASSWORD"),
                         required("MFR_ROOM"), nick, os.environ.get("AGENT_START_WRONG") == "1")
    loop = agent.loop
    done = asyncio.Event()
    agent.add_event_handler("disconnected", lambda _e: done.set())
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, agent.disconnect)
    # XMPP_PLAIN=1: a local server without TLS, as the project's throw-away Prosody is
    # (SCRAM still protects the password); everywhere else STARTTLS is required.
    plain = os.environ.get("XMPP_PLAIN") == "1"
    port = service.port or 5222
    # slixmpp 1.8 looks a host name up again before connecting and takes the port from its
    # default_port (5222), not from the address: without both, localhost:15222 goes to 5222.
    agent.default_port = port
    agent.connect(address=(service.hostname, port), force_starttls=not plain, disable_starttls=plain)
    loop.run_until_complete(done.wait())


if __name__ == "__main__":
    main()
