# syntax=docker/dockerfile:1.7
# One image for every GuardAgent service. TypeScript runs as is (tsx), so there is no build
# step; the only native dependency is isolated-vm (the guard-code sandbox): on Node 22 and 24 it
# comes prebuilt (isolated-vm 6.2.0); the toolchain below is for Node 20 images (5.0.4 from source).
#
#   docker build -t guardagent .
#   docker run --rm -e REDIS_URL=redis://redis:6379 guardagent                      # the gateway (default)
#   docker run --rm -e REDIS_URL=... guardagent \
#     node --no-node-snapshot --import tsx services/executor/src/main.ts            # any other service

ARG NODE_IMAGE=node:24-bookworm-slim

# 1. Only the manifests, so the dependency layer is rebuilt only when they change.
FROM ${NODE_IMAGE} AS manifests
WORKDIR /src
COPY . .
RUN mkdir -p /manifests \
 && cp package.json package-lock.json .npmrc /manifests/ \
 && find packages services -mindepth 2 -maxdepth 2 -name package.json -exec cp --parents {} /manifests/ \;

# 2. Dependencies, with the toolchain isolated-vm needs when no prebuilt binary fits.
FROM ${NODE_IMAGE} AS deps
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=manifests /manifests/ ./
# Dev dependencies stay: tsx is the runtime entry (no build step).
RUN npm ci --no-audit --no-fund \
 && npm cache clean --force

# 3. The runtime image: sources + node_modules, run as the unprivileged `node` user.
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    GUARDAGENT_GATEWAY_PORT=8080 \
    GUARDAGENT_GATEWAY_HOST=0.0.0.0
WORKDIR /app
COPY --from=deps --chown=node:node /app/ ./
COPY --chown=node:node package.json tsconfig.json ./
COPY --chown=node:node packages/ ./packages/
COPY --chown=node:node services/ ./services/
COPY --chown=node:node examples/ ./examples/
COPY --chown=node:node infra/healthcheck.mjs ./infra/healthcheck.mjs
USER node
EXPOSE 8080
# isolated-vm needs --no-node-snapshot on Node >= 20.
CMD ["node", "--no-node-snapshot", "--import", "tsx", "services/gateway/src/main.ts"]
