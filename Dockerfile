# Not exercised by CI (no Docker engine on the build machines); test/docker/image-env.test.ts runs the
# built dist/ the way this image does. Kept deliberately simple.

# Build stage: native modules come from the npm registry and compile here against Node's own headers
# (/usr/local/include/node), so nothing is downloaded from elsewhere: better-sqlite3 from source (no
# prebuilt binary fetched from GitHub); onnxruntime-node ships its CPU binaries inside the npm package
# (package.json's allowScripts keeps its install script, a CUDA download, from running; the image's npm 11
# honours it). Node 24: the LTS line CI tests (scripts/node-lts.sh).
FROM node:24-bookworm-slim AS build
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV npm_config_build_from_source=true npm_config_nodedir=/usr/local
COPY package.json package-lock.json .npmrc ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# onnxruntime-node carries binaries for every platform; the image keeps its own.
RUN npm run build && npm prune --omit=dev \
  && find node_modules/onnxruntime-node/bin -mindepth 3 -maxdepth 3 -type d ! -path "*/linux/$(node -p process.arch)" -exec rm -rf {} +

FROM node:24-bookworm-slim
# Run state lives on the /data volume (SQLite), unless STATE_URL points at PostgreSQL. Listening on every
# interface, the service starts only with API keys (API_KEYS or API_KEYS_FILE) or ALLOW_ANONYMOUS=true.
ENV NODE_ENV=production PORT=8080 HOST=0.0.0.0 STATE_DIR=/data
# glibc's malloc keeps large freed blocks inside its arenas unless its thresholds are fixed at start-up, as
# `npm start` does (docs/concurrency.md, Memory).
ENV MALLOC_MMAP_THRESHOLD_=131072 MALLOC_TRIM_THRESHOLD_=131072
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY models ./models
COPY web ./web
# `plan-reward` on the PATH (keys new, backup, restore, audit): bin/plan-reward.js runs the built dist/cli/.
RUN mkdir -p /data && chown node:node /data && ln -s /app/bin/plan-reward.js /usr/local/bin/plan-reward
VOLUME /data
USER node
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "dist/main.js"]
