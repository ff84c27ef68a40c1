/**
 * The core scenarios (test/support/core-scenarios.ts) against ejabberd from Debian's
 * packages, started with the project's tested configuration (ejabberd/ejabberd.yml).
 */
import { itReplaysEveryLoggedSessionAsSent } from "../support/coordinator-process.js";
import { coreScenarios } from "../support/core-scenarios.js";
import { useTestEjabberd } from "../support/ejabberd.js";

const { server, afterThis } = useTestEjabberd();

coreScenarios(server, afterThis);

itReplaysEveryLoggedSessionAsSent();
