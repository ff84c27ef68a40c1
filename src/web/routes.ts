/**
 * The web view's routes: the sessions page, each session's page, its graph, its live
 * stream and its downloads, and the static assets. Read-only; every page is drawn from the
 * session records (./session-records.ts) as they are at the request.
 */
import type { ServerResponse } from "node:http";
import type { Route } from "../ops/route.js";
import type { Session } from "../session/types.js";
import type { SessionStore } from "../store/index.js";
import { loadAssets } from "./assets.js";
import { downloadNames, downloadOf } from "./downloads.js";
import type { Html } from "./html.js";
import { plain } from "./http-server.js";
import { LiveStreams } from "./live-stream.js";
import { modelGraph, type ModelGraph } from "./model-graph.js";
import { Recent } from "./recent.js";
import type { SessionRecords } from "./session-records.js";
import { sessionPage } from "./session-page.js";
import { isStatusFilter, sessionsPage, type RoomKeepingLine } from "./sessions-page.js";

export interface WebRoutesOptions {
  records: SessionRecords;
  /** For downloads; without a store the page offers none. */
  store: SessionStore | undefined;
  now: () => number;
  /** Whether each protocol room keeps agents' protocol messages (the sessions page says so). */
  rooms?: () => readonly RoomKeepingLine[];
}

const GRAPHS_KEPT = 50;

function send(response: ServerResponse, contentType: string, body: string | Buffer, extra: Record<string, string> = {}): true {
  response.statusCode = 200;
  response.setHeader("Content-Type", contentType);
  for (const [name, value] of Object.entries(extra)) response.setHeader(name, value);
  response.end(body);
  return true;
}

function sendHtml(response: ServerResponse, page: Html): true {
  return send(response, "text/html; charset=utf-8", page.markup);
}

/** The path's segments, decoded; undefined when one is not valid percent-encoding. */
function segments(url: URL): string[] | undefined {
  try {
    return url.pathname.split("/").filter((s) => s !== "").map(decodeURIComponent);
  } catch {
    return undefined;
  }
}

export function webRoutes(options: WebRoutesOptions): Route[] {
  const { records, store, now } = options;
  const assets = loadAssets();
  const streams = new LiveStreams(records);
  // The graph parses the contributions: keep it until they or the findings change.
  const graphs = new Recent<ModelGraph>(GRAPHS_KEPT);
  const graphOf = (s: Session): ModelGraph => {
    const key = `${s.id}\u0000${s.contributionsVersion}\u0000${s.validations.length}`;
    const cached = graphs.get(key);
    if (cached) return cached;
    const graph = modelGraph(s);
    graphs.set(key, graph);
    return graph;
  };

  const home: Route = (_request, response, url) => {
    if (url.pathname !== "/") return false;
    response.statusCode = 303;
    response.setHeader("Location", "/sessions");
    response.end();
    return true;
  };

  // Browsers ask for an icon on every page; there is none, and a 404 would be a console error.
  const noIcon: Route = (_request, response, url) => {
    if (url.pathname !== "/favicon.ico") return false;
    response.statusCode = 204;
    response.end();
    return true;
  };

  const sessionsList: Route = (_request, response, url) => {
    if (url.pathname !== "/sessions" && url.pathname !== "/sessions/") return false;
    const status = url.searchParams.get("status");
    const filter = isStatusFilter(status) ? status : undefined;
    return sendHtml(response, sessionsPage(records.list(filter), filter, now(), options.rooms?.() ?? []));
  };

  const everyStep: Route = (_request, response, url) => {
    if (url.pathname !== "/events") return false;
    streams.serve(response, () => true);
    return true;
  };

  const session: Route = async (_request, response, url) => {
    const parts = segments(url);
    if (parts === undefined) {
      plain(response, 400, "not a valid path");
      return true;
    }
    if (parts[0] !== "sessions" || parts.length < 2) return false;
    const id = parts[1] as string;
    await records.prepare(id);
    const data = records.page(id);
    if (!data) {
      plain(response, 404, `there is no session "${id}"`);
      return true;
    }
    const rest = parts.slice(2);
    if (rest.length === 0) {
      const downloads = store ? downloadNames(data.session) : [];
      return sendHtml(response, sessionPage({ ...data, graph: graphOf(data.session), downloads, now: now() }));
    }
    if (rest.length === 1 && rest[0] === "graph.json") return send(response, "application/json; charset=utf-8", JSON.stringify(graphOf(data.session)));
    if (rest.length === 1 && rest[0] === "events") {
      streams.serve(response, (change) => change.sessionId === id);
      return true;
    }
    if (rest.length === 2 && rest[0] === "export" && store) {
      const file = downloadOf(store, id, rest[1] as string);
      if (!file) return false;
      // The name is one the export made from a safe session id; quoted all the same.
      return send(response, file.contentType, file.content, { "Content-Disposition": `attachment; filename="${file.name.replace(/["\\]/g, "_")}"` });
    }
    return false;
  };

  const staticAssets: Route = (_request, response, url) => {
    if (!url.pathname.startsWith("/assets/")) return false;
    const asset = assets.get(url.pathname.slice("/assets/".length));
    if (!asset) return false;
    return send(response, asset.contentType, asset.body, { "Cache-Control": "no-cache" });
  };

  return [home, noIcon, sessionsList, everyStep, session, staticAssets];
}
