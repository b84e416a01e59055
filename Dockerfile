# canopy: one image for every tier, running the compiled build (dist/) on plain node as the
# non-root user `node`. By default it runs the whole local tree in one container
# (dist/cli/start.js: the root on 8080, leaves and aggregators as forked processes);
# docker-compose.yml and deploy/k8s run one host of a topology per container instead
# (dist/cli/serve.js), with their own command, limits and health checks.
#
# The base is pinned to an exact release tag (the Node.js this repository is tested on). To pin
# it to a digest as well, resolve it where a registry is reachable and pass it in:
#   docker build --build-arg NODE_IMAGE=node:20.20.2-bookworm-slim@sha256:<digest> .
ARG NODE_IMAGE=node:20.20.2-bookworm-slim

# 1. Compile: all dependencies, tsc to dist/.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
RUN npm run build

# 2. Production dependencies only (no tsx, TypeScript, test tools).
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# 3. The image: node_modules, dist/, the topology files; nothing writable but the shard cache.
FROM ${NODE_IMAGE}
ARG CANOPY_REVISION=unknown
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 CANOPY_REVISION=${CANOPY_REVISION}
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY deploy/topology.json ./deploy/topology.json
RUN mkdir -p /app/.canopy-cache && chown node:node /app/.canopy-cache
USER node
EXPOSE 8080
# The root's /healthz: 200 when it can answer (degraded when its children are unreachable).
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Each process of the tree (the launcher passes the flag to its workers) gets a 1 GiB V8 heap:
# give the container at least 4 GiB for the default 4 processes, or lower the flag with it.
CMD ["node", "--max-old-space-size=1024", "dist/cli/start.js"]
