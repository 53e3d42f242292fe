# Production image of Roadlog: built from source in a Rust image, run from a distroless base
# as a non-root user. The binary needs only the C library (SQLite is compiled in, and the
# service speaks plain TCP: TLS ends at the proxy in front of it).
#
#   docker build -t roadlog .
#   docker run -e DATABASE_URL=postgres://… -p 8080:8080 roadlog
#
# CI lints this file with hadolint; it builds the image only where a Docker engine runs.

FROM rust:1.95-slim-bookworm AS build
WORKDIR /src
# The dependencies first, so that a change of our code alone does not rebuild them.
COPY Cargo.toml Cargo.lock build.rs ./
# Build settings (the bundled SQLite's compile flags).
COPY .cargo .cargo
COPY codegen codegen
# Every workspace member's folder: cargo loads the whole workspace, even to build one binary.
COPY client client
COPY bench bench
COPY examples/fleet-app examples/fleet-app
COPY schema schema
COPY openapi openapi
COPY generated generated
COPY templates templates
COPY assets assets
COPY src src
RUN cargo build --release --locked --bin roadlog \
    && cp target/release/roadlog /roadlog

FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /roadlog /usr/local/bin/roadlog
# The defaults of a production container; every one can be overridden at run time.
ENV ROADLOG_ENV=production \
    ROADLOG_BIND=0.0.0.0:8080 \
    ROADLOG_METRICS_BIND=0.0.0.0:9090 \
    ROADLOG_LOG_FORMAT=json \
    ROADLOG_DATA_DIR=/home/nonroot/data
USER nonroot
EXPOSE 8080 9090
ENTRYPOINT ["/usr/local/bin/roadlog"]
CMD ["serve"]
