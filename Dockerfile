# syntax=docker/dockerfile:1
# karmada-interpreter-webhook: a small, non-root, read-only-root-friendly image.
#   docker buildx build --load -t karmada-interpreter-webhook:dev .
#   (multi-arch, labels, SBOM and provenance as the release does it: README.md, "Build the image yourself")
# Node 26 (LTS) is what the project is tested on (package.json engines; `npm ci` installs it for
# development). The base images are named by tag; the release's provenance records the digests used.
# The build and deps stages run on the builder's own platform: their output is JavaScript, and no
# production dependency has an install script or a native part (test/deploy/dockerfile.test.ts), so a
# multi-arch build needs no emulation until the runtime stage, which only copies.

# 1. Build: all dependencies (TypeScript), compile to dist/. `npm ci --ignore-scripts`: its `prepare` (the
#    build) would run before the sources are copied; the build runs once, below.
FROM --platform=$BUILDPLATFORM node:26-trixie-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY interpreters ./interpreters
RUN npm run build \
 # Runtime files only: the compiled code and the built-in Lua customizations it loads from interpreters/.
 && mkdir -p /out \
 && cp -r dist package.json /out/ \
 && find interpreters -name customizations.yaml -not -path '*/testdata/*' -exec cp --parents {} /out/ \;

# 2. Production dependencies only, fengari patched. --ignore-scripts: `prepare` would try to compile without
#    TypeScript, and no runtime dependency needs an install script (all pure JavaScript). It skips our own
#    `postinstall` too, so that runs explicitly: patch-package (a production dependency for this) applies
#    patches/fengari+0.1.5.patch and fails the build if it does not apply (docs/decisions/0010).
FROM --platform=$BUILDPLATFORM node:26-trixie-slim AS deps
WORKDIR /src
COPY package.json package-lock.json ./
COPY patches ./patches
RUN npm ci --omit=dev --ignore-scripts && npm run postinstall && npm cache clean --force

# 3. Runtime: distroless Node.js (no shell, no package manager), uid/gid 65532.
FROM gcr.io/distroless/nodejs26-debian13:nonroot AS runtime
WORKDIR /app
ENV NODE_ENV=production
COPY --from=deps --chown=65532:65532 /src/node_modules ./node_modules
COPY --from=build --chown=65532:65532 /out/ ./
USER 65532:65532
EXPOSE 8443
# Nothing is written at run time when certificates come from --cert-dir (the manifests mount the
# cert-manager Secret); without it the self-signed default writes to /tmp, so mount an emptyDir there.
ENTRYPOINT ["/nodejs/bin/node", "dist/src/cli.js"]
CMD ["serve"]
