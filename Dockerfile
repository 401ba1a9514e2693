# syntax=docker/dockerfile:1
# Build stage: compile TypeScript with the full dependency tree.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts ./scripts
COPY ui ./ui
RUN node scripts/build.mjs && npm prune --omit=dev --ignore-scripts

# Runtime stage: compiled code, production dependencies, git (vault sync), a non-root user.
FROM node:20-bookworm-slim AS runtime
RUN apt-get update \
  && apt-get install -y --no-install-recommends git ca-certificates tini \
  && rm -rf /var/lib/apt/lists/* \
  && groupadd --system steward && useradd --system --gid steward --create-home steward
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
RUN ln -s /app/dist/cli/main.js /usr/local/bin/steward && chmod +x /app/dist/cli/main.js \
  && mkdir -p /data /workspace && chown steward:steward /data /workspace
USER steward
ENV STEWARD_DATA_DIR=/data STEWARD_WORKSPACE=/workspace NODE_ENV=production
EXPOSE 8080
ENTRYPOINT ["tini", "--", "node", "--max-semi-space-size=8", "--heap-growing-percent=50", "/app/dist/cli/main.js"]
CMD ["start"]

# Engine stage: OpenCode run by `steward engine` (the same lockdown as under `steward start`).
FROM runtime AS engine
USER root
RUN npm install -g opencode-ai@1.18.33 && npm cache clean --force
USER steward
EXPOSE 4096
CMD ["engine", "--host", "0.0.0.0", "--port", "4096", "--mcp-url", "http://api:8080/mcp"]
