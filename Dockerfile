# syntax=docker/dockerfile:1
# The service's image: `docker build -t financial-report-analysis .` (README, "Running in production").
# Build stage: install, build the web app, drop dev dependencies. Runtime stage: Node 24 slim, no npm, non-root.

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: no second Node (the `node` package, which pins Node 24 for development, would download one: the
# image has Node 24 already, so the package is removed) and no web build before the sources are here; argon2's
# native module is the one install step the service needs.
RUN npm ci --ignore-scripts \
  && rm -rf node_modules/node node_modules/.bin/node \
  && npm rebuild argon2
COPY . .
# The OpenAPI document parsed once, as JSON under node_modules/.cache (docs/operations.md, Start-up): the runtime user
# cannot write there, so without it every start would parse the YAML.
RUN node node_modules/vite/bin/vite.js build \
  && npm prune --omit=dev --ignore-scripts \
  && rm -rf node_modules/node node_modules/.bin/node web/src test \
  && node -e "import('./server/rest/docsRoutes.ts').then((docs) => docs.loadOpenApiDocument())"

FROM node:24-bookworm-slim
# Node's compile cache in the container's own /tmp: the runtime user cannot write node_modules (docs/operations.md).
ENV NODE_ENV=production \
    NODE_COMPILE_CACHE=/tmp/node-compile-cache \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data
# No package manager at run time: nothing installs or runs through npm in production.
RUN rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack \
      /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack /opt/yarn-* /usr/local/bin/yarn /usr/local/bin/yarnpkg \
  && mkdir -p /data && chown node:node /data
WORKDIR /app
# Owned by root, run as `node` (uid 1000): the code cannot be changed by the process that runs it.
COPY --from=build /app /app
USER node
EXPOSE 3000
VOLUME ["/data"]
# Liveness: the process answers. (Readiness, /readyz, is for the load balancer or orchestrator.)
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
# node itself, not npm: SIGTERM reaches the service (run with an init, e.g. `docker run --init`, as compose does).
CMD ["node", "server/main.ts"]
