# syntax=docker/dockerfile:1
# Build: front-end libraries from npm, then a static Go binary.
FROM node:20-bookworm-slim AS assets
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund --loglevel=error

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
COPY --from=assets /src/node_modules/htmx.org/dist/htmx.min.js assets/vendor/
COPY --from=assets /src/node_modules/@picocss/pico/css/pico.min.css assets/vendor/
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/portal ./cmd/portal

# Run: a small image with CA certificates, as an unprivileged user.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/portal /usr/local/bin/portal
ENV PORTAL_ENV=production PORTAL_LISTEN_ADDR=0.0.0.0:8080
EXPOSE 8080
USER nonroot:nonroot
ENTRYPOINT ["/usr/local/bin/portal"]
CMD ["serve"]
