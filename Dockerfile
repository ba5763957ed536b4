# apple-id-mock: a mock of Apple's "Sign in with Apple" server.
#   docker build -t apple-id-mock:local .   then   docker run -p 8080:8080 apple-id-mock:local
# or `docker compose up` (docker-compose.yml mounts ./scenarios and ./keys read-only).
# Two replicas sharing PostgreSQL behind nginx: `docker compose -f docker-compose.replicas.yml up`.
#
# The runtime image is Debian's bookworm-slim and one executable: the Swift standard library and
# Foundation are linked into it (--static-swift-stdlib), so no Swift runtime image is needed; the
# shared libraries it loads are glibc's, libstdc++, zlib (all in every Debian image) and OpenSSL's
# libcrypto (RS256 signatures). SQLite is built in (sqlite-nio). docs/container.md has the
# measurements behind this choice.

# --- build ------------------------------------------------------------------------------------
FROM swift:6.3-bookworm AS build
WORKDIR /build

# OpenSSL's headers and libcrypto: RS256 signatures go through the system's OpenSSL (COpenSSL).
RUN apt-get update \
    && apt-get install -y --no-install-recommends libssl-dev=3.* \
    && rm -rf /var/lib/apt/lists/*

# Resolve dependencies in their own layer: it is reused until Package.swift (or Package.resolved,
# when the checkout has one) changes. The build cache (.build) is a cache mount shared with the
# next step, so packages are fetched once, and a rebuild after a source change compiles only
# what changed.
COPY Package.* ./
RUN --mount=type=cache,id=apple-id-mock-build,target=/build/.build \
    swift package resolve

# Tests/ is copied because the manifest declares test targets whose folders must exist.
COPY Sources ./Sources
COPY Tests ./Tests
# The binary, stripped, and beside it its resource bundle (the OpenAPI document, the dashboard).
RUN --mount=type=cache,id=apple-id-mock-build,target=/build/.build \
    swift build -c release --product apple-id-mock --static-swift-stdlib \
    && mkdir -p /staging \
    && BIN="$(swift build -c release --show-bin-path)" \
    && cp "$BIN/apple-id-mock" /staging/ \
    && strip /staging/apple-id-mock \
    && cp -R "$BIN/apple-id-mock_AppleIDMock.resources" /staging/

# --- run --------------------------------------------------------------------------------------
FROM debian:bookworm-slim

# libcrypto for the RS256 signatures; CA roots for notifications sent to https:// URLs.
RUN apt-get update \
    && apt-get install -y --no-install-recommends libssl3=3.* ca-certificates=20230311* \
    && rm -rf /var/lib/apt/lists/*

# /data holds the state file of `--state sqlite:/data/state.db` (mount a volume there to keep it).
RUN groupadd --system --gid 10001 apple-id-mock \
    && useradd --system --no-log-init --uid 10001 --gid 10001 --home-dir /app --shell /usr/sbin/nologin apple-id-mock \
    && mkdir /data && chown 10001:10001 /data

WORKDIR /app
COPY --from=build /staging/ /usr/local/bin/
COPY scenarios ./scenarios
COPY keys ./keys
# openssl writes private keys as 0600; these test keys are public by design and must be readable
# by the unprivileged user. Everything stays owned by root, so the server cannot change them.
RUN chmod -R a+rX /app

# Numeric, so that runtimes checking runAsNonRoot can tell it is not root.
USER 10001:10001
# 8080: HTTP; 2525: the email relay, when --smtp-port / APPLE_ID_MOCK_SMTP_PORT turns it on.
EXPOSE 8080 2525
ENV APPLE_ID_MOCK_HOST=0.0.0.0 \
    APPLE_ID_MOCK_PORT=8080

# There is no curl in the slim image: bash's /dev/tcp asks GET /health and wants a 200 status line.
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
    CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/${APPLE_ID_MOCK_PORT:-8080} && printf 'GET /health HTTP/1.1\\r\\nHost: localhost\\r\\nConnection: close\\r\\n\\r\\n' >&3 && head -n 1 <&3 | grep -q '^HTTP/1\\.[01] 200'"]

ENTRYPOINT ["apple-id-mock"]
CMD ["serve"]
