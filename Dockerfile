# apple-id-mock: a mock of Apple's "Sign in with Apple" server.
#   docker build -t apple-id-mock:local .   then   docker run -p 8080:8080 apple-id-mock:local
# or `docker compose up` (docker-compose.yml mounts ./scenarios and ./keys read-only).
# Two replicas sharing PostgreSQL behind nginx: `docker compose -f docker-compose.replicas.yml up`.
#
# The runtime image is Debian's bookworm-slim and one executable: the Swift standard library,
# Foundation and OpenSSL's libcrypto (RS256 signatures) are linked into it, so no Swift runtime
# and no OpenSSL package is needed; the shared libraries it loads are glibc's, libstdc++ and zlib
# (all in every Debian image). SQLite is built in (sqlite-nio). ICU's data, which Foundation
# carries, is cut to what the server can use (2 MB of 34). docs/container.md has the measurements
# behind this shape.

# --- build ------------------------------------------------------------------------------------
FROM swift:6.3-bookworm AS build
# Every RUN below fails when any command of a pipe fails.
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
WORKDIR /build

# OpenSSL's headers and libcrypto: RS256 signatures go through the system's OpenSSL (COpenSSL).
# Without the shared library's development link, `-lcrypto` takes libcrypto.a: the executable
# carries the parts of OpenSSL it calls (3 MB) instead of the image carrying libssl3 (6 MB) and,
# for ca-certificates, the openssl program. The CA roots for https:// notifications are copied
# into the runtime image as one file.
RUN apt-get update \
    && apt-get install -y --no-install-recommends libssl-dev=3.* ca-certificates=20230311* \
    && rm -rf /var/lib/apt/lists/* \
    && rm "$(dpkg -L libssl-dev | grep '/libcrypto\.so$')"

# Resolve dependencies in their own layer: it is reused until Package.swift (or Package.resolved,
# when the checkout has one) changes. The build cache (.build) is a cache mount shared with the
# next step, so packages are fetched once, and a rebuild after a source change compiles only
# what changed.
COPY Package.* ./
RUN --mount=type=cache,id=apple-id-mock-build,target=/build/.build \
    swift package resolve

# ICU's data, cut to what the server can use (scripts/container/icu-data-subset.swift), from the
# package the toolchain's ICU archive defines as `icudtNN_dat`; Sources/CICUData defines that
# symbol with the subset, so the linker never takes the full package.
COPY scripts/container/icu-data-subset.swift ./scripts/container/
WORKDIR /icu
RUN ICU_ARCHIVE="$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")/lib/swift_static/linux/lib_FoundationICU.a" \
    && ar x "$ICU_ARCHIVE" icu_packaged_data.cpp.o \
    && nm icu_packaged_data.cpp.o | awk '$3 ~ /^icudt[0-9]+_dat$/ { print $3 }' >symbol \
    && test -s symbol \
    && objcopy -O binary --only-section=.rodata icu_packaged_data.cpp.o full.dat \
    && swift /build/scripts/container/icu-data-subset.swift full.dat subset.dat \
    && rm full.dat icu_packaged_data.cpp.o
WORKDIR /build

# Tests/ is copied because the manifest declares test targets whose folders must exist.
COPY Sources ./Sources
COPY Tests ./Tests
# The binary, stripped, and beside it its resource bundle (the OpenAPI document, the dashboard).
# Linked by lld with packed relative relocations (glibc 2.36 reads them: 35 KB instead of 3.6 MB
# of relocations to load) and without exporting every Swift symbol to the dynamic symbol table
# (--static-swift-stdlib's -export-dynamic: 5 MB that only a crash backtrace's names would use).
RUN --mount=type=cache,id=apple-id-mock-build,target=/build/.build \
    swift build -c release --product apple-id-mock --static-swift-stdlib \
        -Xcc -DAPPLE_ID_MOCK_ICU_DATA_FILE=/icu/subset.dat -Xcc "-DAPPLE_ID_MOCK_ICU_DATA_SYMBOL=$(cat /icu/symbol)" \
        -Xswiftc -use-ld=lld -Xlinker --no-export-dynamic -Xlinker -z -Xlinker pack-relative-relocs \
    && mkdir -p /staging \
    && BIN="$(swift build -c release --show-bin-path)" \
    && cp "$BIN/apple-id-mock" /staging/ \
    && strip /staging/apple-id-mock \
    && cp -R "$BIN/apple-id-mock_AppleIDMock.resources" /staging/

# --- run --------------------------------------------------------------------------------------
FROM debian:bookworm-slim

# CA roots for notifications sent to https:// URLs (swift-nio-ssl reads this bundle).
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt

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
