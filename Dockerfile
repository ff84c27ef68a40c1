# syntax=docker/dockerfile:1
# The MFR Coordinator as a container: built with the development dependencies, run with the
# production ones only, as an unprivileged user, with a health check on /readyz.
#
#   docker build -t mfr-coordinator .
#   docker compose up            # with Prosody beside it: see compose.yaml
#
# Configuration: the profile in /app/config/agents (mount your own over it), the password in
# XMPP_PASSWORD, the database in the /data volume. See docs/operating.md.

ARG NODE_VERSION=20

# ---- build: compile TypeScript, then drop the development dependencies ---------------------
FROM node:${NODE_VERSION}-bookworm-slim AS build
# better-sqlite3 compiles from source where no prebuilt binary fits the platform.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
COPY bench ./bench
COPY examples ./examples
# `npm ci` compiles through the `prepare` hook (scripts/build.mjs) and stamps dist/.
RUN npm ci --no-audit --no-fund \
 && test -f dist/build-info.json \
 && npm prune --omit=dev --no-audit --no-fund

# ---- runtime: node, the production dependencies, dist/ ------------------------------------
FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production \
    MFR_DATA_DIR=/data \
    MFR_HTTP_PORT=8080
WORKDIR /app
# Same base image as the build stage, so the native SQLite binding built there runs here.
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY scripts ./scripts
COPY shapes ./shapes
COPY config/agents ./config/agents
COPY LICENSE README.md ./
RUN mkdir -p /data && chown node:node /data
# The image's unprivileged user (uid 1000); nothing under /app is writable by it.
USER node
VOLUME ["/data"]
# Slim images have no curl: node's own fetch asks the coordinator whether it is ready.
# With MFR_HTTP_HOST=0.0.0.0 (to publish the web view) a token is required, so the check sends it.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "const t = process.env.MFR_HTTP_TOKEN; fetch(`http://127.0.0.1:${process.env.MFR_HTTP_PORT}/readyz`, { headers: t ? { authorization: `Bearer ${t}` } : {} }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM (docker stop) makes it leave its rooms, close the stream and exit 0 within 5 s.
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "scripts/start.mjs"]
CMD ["start"]
