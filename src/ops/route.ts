/**
 * One HTTP route of the coordinator's web server (src/web/): it answers the request and
 * returns true, or returns false and leaves it to the next route. The web view, the metrics
 * and the health checks are each a list of routes; the server owns binding and access.
 */
import type { IncomingMessage, ServerResponse } from "node:http";

export type Route = (request: IncomingMessage, response: ServerResponse, url: URL) => boolean | Promise<boolean>;
