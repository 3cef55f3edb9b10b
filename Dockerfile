# syntax=docker/dockerfile:1
# The portal's image, built from registry images (node, golang, Debian). Where no
# registry can be reached, `make image` builds the same image on no base image
# (image/Containerfile). Both read the vendored front-end files from
# assets/vendor.list.

# Front-end libraries from npm, copied to the names assets/vendor.list gives them.
FROM node:20-bookworm-slim AS assets
WORKDIR /src
COPY package.json package-lock.json assets/vendor.list ./
RUN npm ci --omit=dev --no-audit --no-fund --loglevel=error \
 && mkdir vendor \
 && awk '/^[^#]/ {print "node_modules/" $2, "vendor/" $1}' vendor.list | xargs -n 2 cp

# A static Go binary with those files embedded.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
COPY --from=assets /src/vendor/ assets/vendor/
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/portal ./cmd/portal \
 && mkdir -p /out/tmp /out/data /out/etc && chmod 1777 /out/tmp \
 && printf 'root:x:0:0:root:/root:/sbin/nologin\nportal:x:10001:10001:portal:/data:/sbin/nologin\n' >/out/etc/passwd \
 && printf 'root:x:0:\nportal:x:10001:\n' >/out/etc/group

# CA certificates from Debian's ca-certificates, a writable /tmp (uploads spool
# there with S3 storage), /data for the portal's user, and that user by number
# (named in /etc/passwd).
FROM debian:bookworm-slim AS certificates
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends ca-certificates

FROM scratch
COPY --from=certificates /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /out/tmp /tmp
COPY --from=build /out/etc/ /etc/
COPY --from=build --chown=10001:10001 /out/data /data
COPY --from=build /out/portal /usr/local/bin/portal
WORKDIR /data
ENV PORTAL_ENV=production PORTAL_LISTEN_ADDR=0.0.0.0:8080 TMPDIR=/tmp
EXPOSE 8080
USER 10001:10001
ENTRYPOINT ["/usr/local/bin/portal"]
CMD ["serve"]
