# syntax=docker/dockerfile:1
# hermes gateway as a container (docs/operations.md "Container"). Two stages: `build` installs
# the dependencies, compiles better-sqlite3 and the TypeScript, then drops the dev dependencies;
# the final image holds Node, dist/ and the production node_modules, and runs as a user without
# privileges, with HERMES_HOME (sessions, handle keys, users, logs) on a volume.
#
# With Docker and a registry:   docker build -t hermes .
# Offline, with podman and bases made from Debian packages (scripts/container-smoke.sh makes
# them):  podman build --format docker --build-arg BUILD_BASE=localhost/hermes-build-base:node22 \
#           --build-arg RUNTIME_BASE=localhost/hermes-base:node22 -t hermes .
# A base needs Node 20.19+, 22.12+ or 24 with npm in /usr/local (the official node images'
# layout); the build base also python3, make and a C++ compiler (better-sqlite3 compiles from
# source when no prebuilt binary can be downloaded).
ARG BUILD_BASE=node:22-bookworm
ARG RUNTIME_BASE=node:22-bookworm-slim

FROM ${BUILD_BASE} AS build
# Behind a proxy that re-signs TLS, npm needs its CA bundle: mount it into the build and name it
# here (--build-arg npm_config_cafile=PATH; scripts/container-smoke.sh does when the host has one).
ARG npm_config_cafile
WORKDIR /src
# node-gyp finds the headers of the image's own Node here instead of downloading them.
ENV npm_config_nodedir=/usr/local
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm \
    npm ci --ignore-scripts --no-audit --no-fund && npm rebuild better-sqlite3
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/post-build.mjs scripts/post-build.mjs
COPY src src
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM ${RUNTIME_BASE}
ENV NODE_ENV=production \
    HERMES_HOME=/var/lib/hermes \
    HERMES_HEALTHCHECK_URL=http://127.0.0.1:8642/healthz
RUN useradd --system --uid 10001 --user-group --home-dir /var/lib/hermes --shell /usr/sbin/nologin hermes \
    && mkdir -p /var/lib/hermes/workspace \
    && chown -R hermes:hermes /var/lib/hermes \
    && chmod 0700 /var/lib/hermes
WORKDIR /opt/hermes
COPY --from=build /src/package.json ./package.json
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
RUN ln -s /opt/hermes/dist/cli.js /usr/local/bin/hermes
USER hermes
# The gateway's tools work here (a directory of the volume).
WORKDIR /var/lib/hermes/workspace
VOLUME ["/var/lib/hermes"]
EXPOSE 8642
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["node", "-e", "fetch(process.env.HERMES_HEALTHCHECK_URL).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["hermes"]
# Bound to every address, the gateway refuses to start without a token: set HERMES_GATEWAY_TOKEN.
CMD ["gateway", "--host", "0.0.0.0", "--port", "8642"]
