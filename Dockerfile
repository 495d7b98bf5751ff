# syntax=docker/dockerfile:1.7
# One image for every GuardAgent service. The image runs the built JavaScript (`npm run build`,
# esbuild, file for file into each workspace's dist/) with production dependencies only: no tsx,
# no compiler, no test tools. The only native dependency is isolated-vm (the guard-code sandbox):
# on Node 22 and 24 it comes prebuilt (isolated-vm 6.2.0); the toolchain in the build stage is for
# Node 20 images (5.0.4 from source).
#
#   docker build -t guardagent .
#   docker run --rm -e REDIS_URL=redis://redis:6379 guardagent                      # the gateway (default)
#   docker run --rm -e REDIS_URL=... guardagent \
#     node services/executor/dist/main.js                        # any other service

ARG NODE_IMAGE=node:24-bookworm-slim

# 1. Only the manifests, so the dependency layer is rebuilt only when they change.
FROM ${NODE_IMAGE} AS manifests
WORKDIR /src
COPY . .
RUN mkdir -p /manifests \
 && cp package.json package-lock.json .npmrc /manifests/ \
 && mkdir -p /manifests/scripts && cp scripts/build.mjs /manifests/scripts/ \
 && find packages services -mindepth 2 -maxdepth 2 -name package.json -exec cp --parents {} /manifests/ \;

# 2. Dependencies (dev ones too: the build needs esbuild), with the toolchain isolated-vm needs
#    when no prebuilt binary fits. The root `prepare` (the build) finds no sources yet and builds nothing.
FROM ${NODE_IMAGE} AS deps
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=manifests /manifests/ ./
RUN npm ci --no-audit --no-fund \
 && npm cache clean --force

# 3. The build, then the dev dependencies removed.
FROM deps AS build
COPY packages/ ./packages/
COPY services/ ./services/
RUN node scripts/build.mjs \
 && npm prune --omit=dev --no-audit --no-fund \
 && npm cache clean --force

# 4. The runtime image: built code + production node_modules, run as the unprivileged `node` user.
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    GUARDAGENT_GATEWAY_PORT=8080 \
    GUARDAGENT_GATEWAY_HOST=0.0.0.0
WORKDIR /app
COPY --from=build --chown=node:node /app/ ./
COPY --chown=node:node examples/ ./examples/
COPY --chown=node:node infra/healthcheck.mjs ./infra/healthcheck.mjs
USER node
EXPOSE 8080
# Plain node: the services load no isolated-vm; their sandbox worker processes do, and are started
# with --no-node-snapshot (packages/pipeline/src/sandbox/create-guard-runner.ts).
CMD ["node", "services/gateway/dist/main.js"]
