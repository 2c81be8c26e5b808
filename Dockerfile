# timegate as a container image: one image for both programs (`service`, `gateway`, and the
# `admin`/`seed` commands), compiled JavaScript on Node 22, run as the unprivileged `node` user.
#
#   docker build -t timegate .
#   docker run --rm -p 4004:4004 timegate service --host 0.0.0.0     # SQLite in /app/data
#
# compose.yaml runs the service (two replicas, PostgreSQL) behind the gateway (Redis).

FROM node:22-slim AS build
WORKDIR /app
# better-sqlite3 compiles from source where no prebuilt binary can be fetched.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# Dependencies first (a layer that changes only with the lockfile); the build needs the sources.
RUN npm ci --no-audit --no-fund --ignore-scripts && npm rebuild better-sqlite3
COPY tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY cli ./cli
COPY codegen ./codegen
COPY gateway ./gateway
COPY generated ./generated
COPY odata ./odata
COPY service ./service
COPY spec ./spec
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:22-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build --chown=root:root /app/package.json ./
COPY --from=build --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/bin ./bin
COPY --from=build --chown=root:root /app/dist ./dist
COPY --from=build --chown=root:root /app/spec ./spec
# The SQLite file (when no --db/DATABASE_URL is given) is the only thing written.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
VOLUME ["/app/data"]
EXPOSE 4004 8080
# Both programs answer /healthz on their port; set TIMEGATE_HEALTH_URL for another one.
ENV TIMEGATE_HEALTH_URL=http://127.0.0.1:4004/healthz
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch(process.env.TIMEGATE_HEALTH_URL).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "bin/timegate.js"]
CMD ["service", "--host", "0.0.0.0"]
