/**
 * One coordinator with what its entry is given rather than makes: the model worker threads,
 * sized by the configuration (and writing large texts into the embedded store's file
 * themselves), and, when `mfr:httpPort` is set, the web view, started after the restore so its
 * pages never show a half-rebuilt state. The command line, the fleet and the demo run
 * coordinators through it.
 */
import type { Logger } from "pino";
import type { Config } from "../config/schema.js";
import { Coordinator, type CoordinatorOptions } from "../coordinator/coordinator.js";
import type { CoordinatorStore } from "../host/coordinator-store.js";
import type { ModelPool } from "../host/model-service.js";
import { ModelShare } from "../model-workers/model-share.js";
import { defaultWorkerCount, ModelWorker } from "../model-workers/model-worker.js";
import { operationsRoutes } from "../ops/routes.js";
import { SessionStore } from "../store/index.js";
import { startWebView, type RunningWebView } from "../web/index.js";

/** What a launched coordinator is made with: the coordinator's options, less what the launch makes. */
export type LaunchOptions = Omit<CoordinatorOptions, "models"> & {
  /**
   * A model worker pool several coordinators share (a fleet instance's, one for all its
   * rooms): the coordinator takes a share of it (ModelShare) and leaves it running when it
   * stops. Without it the coordinator has a pool of its own.
   */
  sharedModels?: ModelPool;
};

/** The embedded store, when that is what the coordinator runs on: the model workers' blob file and the web view's archive. */
export function embeddedStore(store: CoordinatorStore | undefined): SessionStore | undefined {
  return store instanceof SessionStore ? store : undefined;
}

/** The model workers, sized and bounded by the configuration; `onQueueFull` hears each job refused for a full queue. */
export function modelWorkerOf(config: Config, store: CoordinatorStore | undefined, onQueueFull: () => void): ModelWorker {
  const embedded = embeddedStore(store);
  return new ModelWorker({
    shapesPath: config.mfr.shapesPath,
    timeoutMs: config.mfr.validationTimeoutMs,
    workers: config.mfr.modelWorkers ?? defaultWorkerCount(),
    maxQueued: config.limits.maxQueuedModelJobs,
    onQueueFull,
    // A read-only store takes no blobs (isReadonly): the texts then stay inline, as before.
    // So does the shared database: its writes are the owner's, fenced, on the main thread.
    ...(embedded && !embedded.isReadonly ? { storePath: embedded.path } : {}),
  });
}

/** A coordinator over its own model workers, with the web view when configured. */
export class LaunchedCoordinator {
  readonly coordinator: Coordinator;
  private web: RunningWebView | undefined;

  constructor(private readonly options: LaunchOptions) {
    const { sharedModels, ...coordinatorOptions } = options;
    const refused = () => this.coordinator.metrics.refused("workers-busy");
    const models = sharedModels ? new ModelShare(sharedModels, refused) : modelWorkerOf(options.config, options.store, refused);
    this.coordinator = new Coordinator({ ...coordinatorOptions, models });
  }

  /** Restores the sessions, starts the web view (a port that cannot be bound stops the start), then joins and connects. */
  async start(): Promise<void> {
    this.coordinator.restore();
    await this.startWebView(this.options.log);
    await this.coordinator.start();
  }

  /** Where the web view listens (`http://127.0.0.1:<port>/`), or undefined when it is off. */
  get webUrl(): string | undefined {
    return this.web?.url;
  }

  /** Closes the web view, then stops the coordinator. */
  async stop(): Promise<void> {
    try {
      await this.web?.close();
    } finally {
      await this.coordinator.stop();
    }
  }

  private async startWebView(log: Logger): Promise<void> {
    const { http } = this.options.config;
    if (http.port === null) return;
    const { coordinator } = this;
    this.web = await startWebView({
      host: http.host,
      port: http.port,
      token: http.token ?? undefined,
      sessions: coordinator.sessions,
      store: embeddedStore(this.options.store),
      now: this.options.now ?? Date.now,
      log,
      extraRoutes: operationsRoutes({ metrics: coordinator.metrics, readiness: () => coordinator.readiness() }),
      rooms: () => coordinator.absences.rooms(),
    });
    log.info({ url: this.web.url, token: http.token !== null }, "web view listening");
  }
}
