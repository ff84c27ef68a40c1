#!/usr/bin/env python3
"""A MINIMAL MFR PEER AGENT in Python with slixmpp (an example for agent authors; see docs/agents.md).

It joins the room, answers every ModelContributionRequest with a small formal model (a box
to move from one shelf to another) and every SolutionRequest with a plan for it. What it
says is fixed; a real agent would build its model and plan from the problem.

    sudo apt-get install -y python3-slixmpp        # Debian's slixmpp
    XMPP_SERVICE=xmpp://localhost:5222 XMPP_DOMAIN=localhost XMPP_USERNAME=shelver \
    XMPP_PASSWORD=... MFR_ROOM=mfr@conference.localhost AGENT_NICK=Shelver \
    /usr/bin/python3 examples/agents/minimal_agent.py

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
except ImportError:  # pragma: no cover - the message is the point
    sys.stderr.write("minimal_agent: slixmpp is missing: apt-get install -y python3-slixmpp\n")
    sys.exit(3)

LINGUE = "http://purl.org/stuff/lingue/"
MFR = "http://purl.org/stuff/mfr/"
MODE_NEGOTIATION = LINGUE + "ModelNegotiation"
MODE_RDF = LINGUE + "ModelFirstRDF"
MODE_CHAT = LINGUE + "HumanChat"

# The model this agent contributes: relative IRIs, so another agent's <#box> is the same node.
MINIMAL_MODEL = """@prefix mfr: <http://purl.org/stuff/mfr/> .
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
<#moved> a mfr:Goal ; rdfs:label "the box is on shelf B" ; mfr:expression "(on box shelfB)" .
"""

# The plan: steps name an action by its mfr:actionName and objects by their symbols.
MINIMAL_PLAN = ["move(box, shelfA, shelfB)"]


class MinimalAgent(slixmpp.ClientXMPP):
    def __init__(self, jid, password, room, nick):
        super().__init__(jid, password)
        self.room = room
        self.nick = nick
        self.seen = set()  # origin-ids already handled: a message sent again has the same one
        self.answered = set()  # (session, kind, round) already answered
        self.register_plugin("xep_0045")  # multi-user chat
        self.add_event_handler("session_start", self.on_start)
        self.add_event_handler("groupchat_message", self.on_groupchat)

    async def on_start(self, _event):
        self.send_presence()
        # No history: the agent answers what is asked from now on.
        await self.plugin["xep_0045"].join_muc_wait(self.room, self.nick, maxstanzas=0)
        # Any Lingue payload is evidence that this occupant is an agent.
        self.send_payload(f"{self.nick} is ready.", MODE_CHAT, "text/plain", f"{self.nick} ready")
        print(f"minimal_agent: {self.nick} joined {self.room}", flush=True)

    def on_groupchat(self, msg):
        if msg["mucnick"] == self.nick:
            return  # our own echo
        stanza = msg.xml
        if stanza.find("{urn:xmpp:delay}delay") is not None:
            return  # history from before we joined
        payload = stanza.find(f"{{{LINGUE}}}payload")
        if payload is None or payload.get("mode") != MODE_NEGOTIATION:
            return
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
        if kind == MFR + "ModelContributionRequest" and self.once(session_id, "model", round_):
            self.send_payload(f"Model contribution for {session_id}.", MODE_RDF, "text/turtle", MINIMAL_MODEL,
                              {"sessionId": session_id})
        elif kind == MFR + "SolutionRequest" and self.once(session_id, "plan", round_):
            proposal = {
                "messageType": MFR + "SolutionProposal",
                "sessionId": session_id,
                "solution": {"success": True, "message": "Move the box in one step.", "plan": MINIMAL_PLAN},
            }
            self.send_payload(f"Solution proposal for {session_id}.", MODE_NEGOTIATION, "application/json",
                              json.dumps(proposal), message_type=MFR + "SolutionProposal")

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
    agent = MinimalAgent(f"{required('XMPP_USERNAME')}@{required('XMPP_DOMAIN')}/{os.environ.get('AGENT_NICK', 'MinimalAgent')}",
                         required("XMPP_PASSWORD"), required("MFR_ROOM"), os.environ.get("AGENT_NICK", "MinimalAgent"))
    loop = agent.loop
    done = asyncio.Event()
    agent.add_event_handler("disconnected", lambda _e: done.set())
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, agent.disconnect)
    # XMPP_PLAIN=1: a local server without TLS, as the project's throw-away Prosody is
    # (SCRAM still protects the password); everywhere else STARTTLS is required.
    plain = os.environ.get("XMPP_PLAIN") == "1"
    agent.connect((service.hostname, service.port or 5222), force_starttls=not plain, disable_starttls=plain)
    loop.run_until_complete(done.wait())


if __name__ == "__main__":
    main()
