package config

// Doc describes one variable for the configuration reference (docs/configuration.md).
// A variable the readers meet without a Doc, or a Doc no reader meets, fails
// TestReferenceIsCurrent.
type Doc struct {
	Name    string
	Section string
	Meaning string
	// Default and Accepts replace what the reader met, where that is computed or
	// too terse.
	Default string
	Accepts string
}

// Sections of the reference, in order.
const (
	secBasics   = "Basics"
	secDatabase = "Database and background jobs"
	secSecurity = "Sign-in, sessions and keys"
	secUpstream = "The processor (upstream)"
	secStorage  = "Document storage"
	secMail     = "E-mail"
	secPayments = "Payments (virtual terminal)"
	secTerms    = "Card terminals"
	secSandbox  = "The sandbox upstream"
)

// docs describes every variable, grouped by section, in the order the reference shows them.
func docs() []Doc {
	return append(append(basicDocs(), databaseDocs()...), append(upstreamDocs(), sandboxDocs()...)...)
}

func basicDocs() []Doc {
	return []Doc{
		{Name: "PORTAL_ENV", Section: secBasics, Meaning: "`production` switches logs to JSON and refuses settings meant for rehearsals"},
		{Name: "PORTAL_LOG_LEVEL", Section: secBasics, Meaning: "the least severe log level written"},
		{Name: "PORTAL_LISTEN_ADDR", Section: secBasics, Meaning: "address the portal serves on"},
		{Name: "PORTAL_PUBLIC_URL", Section: secBasics, Default: "http://LISTEN_ADDR", Meaning: "the address people use, in links and e-mails; `https://` makes cookies always Secure"},
		{Name: "PORTAL_INSTANCE_NAME", Section: secBasics, Default: "the host's name", Meaning: "names this replica in the job queue (`river_job.attempted_by`) and in the terminal follower's leases"},
		{Name: "PORTAL_DRAIN_PERIOD", Section: secBasics, Default: "5s in production, 0 in development", Meaning: "after SIGTERM, how long `/readyz` answers 503 \"draining\" while requests are still served, before the listener closes; longer than the balancer takes to notice"},
		{Name: "PORTAL_TRUSTED_PROXIES", Section: secBasics, Accepts: "addresses or CIDRs, comma-separated (10.0.0.0/24, 127.0.0.1)", Meaning: "the proxies in front of the portal: only from them are `X-Forwarded-For` and `X-Forwarded-Proto` believed, and the client is the rightmost forwarded address that is not one of them"},
		{Name: "PORTAL_TRUST_PROXY", Section: secBasics, Default: "true when `PORTAL_TRUSTED_PROXIES` is set", Meaning: "no longer needed: `true` alone (which trusted every private address) is refused; set `PORTAL_TRUSTED_PROXIES`"},
		{Name: "PORTAL_RESELLER_NAME", Section: secBasics, Meaning: "the reseller's name, shown in pages and e-mails"},
		{Name: "PORTAL_METRICS_TOKEN", Section: secBasics, Meaning: "bearer token `/metrics` requires when set; without it the endpoint is open to whoever reaches it"},
		{Name: "PORTAL_SEED_EXAMPLES", Section: secBasics, Default: "false (`make run`: true)", Meaning: "add two example pricing models to an empty database"},
		{Name: "PORTAL_ADMIN_EMAIL", Section: secBasics, Default: "admin@example.com", Meaning: "the first admin, created when no admin exists"},
		{Name: "PORTAL_ADMIN_PASSWORD", Section: secBasics, Default: "generated, printed once", Meaning: "the first admin's password (to be changed at the first sign-in)"},
		{Name: "PORTAL_SESSION_IDLE_TIMEOUT", Section: secSecurity, Meaning: "sign out after this long without a request (15 minutes at most for people who must use two-step sign-in)"},
		{Name: "PORTAL_SESSION_LIFETIME", Section: secSecurity, Meaning: "sign out after this long in all"},
		{Name: "PORTAL_PASSWORD_HASH_CONCURRENCY", Section: secSecurity, Default: "0 (the number of CPUs)", Meaning: "password hashes (19 MiB each) computed at once"},
		{Name: "PORTAL_ENCRYPTION_KEYS", Section: secSecurity, Default: "required", Meaning: "key ring for personal data, documents and secret links: `id:base64(32 bytes)[,id:key...]` (`make run` creates one under `.data/`)"},
		{Name: "PORTAL_ENCRYPTION_ACTIVE_KEY", Section: secSecurity, Default: "the only key", Meaning: "id of the key that seals new values; the others still open older ones"},
		{Name: "PORTAL_API_RATE_LIMIT", Section: secSecurity, Meaning: "requests one partner API key may make a minute, counted in Postgres across replicas; more are answered 429 with `Retry-After`"},
		{Name: "PORTAL_WEBHOOKS_TIMEOUT", Section: secSecurity, Meaning: "one delivery of a partner webhook: connecting, sending and the receiver's answer"},
		{Name: "PORTAL_WEBHOOKS_ALLOW_PRIVATE", Section: secSecurity, Meaning: "let partner webhooks reach private, loopback and link-local addresses and plain `http://` (tests and `make run`); refused with `PORTAL_ENV=production`"},
	}
}

func databaseDocs() []Doc {
	return []Doc{
		{Name: "PORTAL_DATABASE_URL", Section: secDatabase, Default: "required", Meaning: "PostgreSQL connection URL (`make run` starts a local cluster and sets it)"},
		{Name: "DATABASE_URL", Section: secDatabase, Meaning: "read when `PORTAL_DATABASE_URL` is not set"},
		{Name: "PORTAL_DB_MAX_CONNS", Section: secDatabase, Default: "the connection budget's share, at most 16 + workers (44)", Meaning: "pool size shared by web requests and background jobs, instead of the budget's share (docs/operations.md, Connection budget): 16 for web requests, one per housekeeping worker, one per four push, four e-mail and four webhook workers"},
		{Name: "PORTAL_REPLICAS", Section: secDatabase, Meaning: "replicas sharing the database at most, the extra one of a rolling restart included; each replica's pool is its share of the database's connections"},
		{Name: "PORTAL_DB_HEADROOM", Section: secDatabase, Meaning: "database connections left for people and tools (psql, a backup, `portal migrate`) when the replicas' pools are sized"},
		{Name: "PORTAL_RUN_WORKERS", Section: secDatabase, Meaning: "work background jobs in this instance; `false` makes a web-only instance (it still queues jobs)"},
		{Name: "PORTAL_WORKER_CONCURRENCY", Section: secDatabase, Meaning: "housekeeping jobs (reconciler, clean-ups, reminders, imports) worked at once, on the `default` queue"},
		{Name: "PORTAL_PUSH_CONCURRENCY", Section: secDatabase, Meaning: "pushes upstream worked at once, on their own `push` queue; a push spends nearly all its time waiting on the upstream"},
		{Name: "PORTAL_MAIL_CONCURRENCY", Section: secDatabase, Meaning: "e-mail deliveries worked at once, on their own `mail` queue; a delivery holds no connection while it talks to the SMTP server, so the pool grows by a quarter of it"},
		{Name: "PORTAL_WEBHOOK_CONCURRENCY", Section: secDatabase, Meaning: "partner webhook deliveries worked at once, on their own `webhooks` queue; the pool grows by a quarter of it"},
		{Name: "PORTAL_JOB_LEASE", Section: secDatabase, Meaning: "a running job's lease, renewed every third of it; a dead process's jobs are worked again about a lease and a third after it stopped"},
		{Name: "PORTAL_JOB_TIMEOUT", Section: secDatabase, Meaning: "a job running longer is cancelled, unless its worker says otherwise"},
		{Name: "PORTAL_JOB_RESCUE_AFTER", Section: secDatabase, Meaning: "River's last-resort retry of a job still marked running (must exceed `PORTAL_JOB_TIMEOUT`)"},
		{Name: "PORTAL_WORKER_SHUTDOWN_TIMEOUT", Section: secDatabase, Meaning: "how long a stopping instance lets running jobs finish before cancelling them (they are retried)"},
	}
}

func upstreamDocs() []Doc {
	return []Doc{
		{Name: "PORTAL_UPSTREAM_MODE", Section: secUpstream, Meaning: "`sandbox` runs the sandbox in this process; `remote` talks to `PORTAL_UPSTREAM_BASE_URL`"},
		{Name: "PORTAL_UPSTREAM_BASE_URL", Section: secUpstream, Meaning: "the account application API (area A), ending with `/v2`; required in remote mode"},
		{Name: "PORTAL_UPSTREAM_TOKEN", Section: secUpstream, Meaning: "a long-lived bearer token for area A, or instead the next two"},
		{Name: "PORTAL_UPSTREAM_API_KEY", Section: secUpstream, Meaning: "key exchanged with its secret at `/auth` for a 24-hour token"},
		{Name: "PORTAL_UPSTREAM_API_SECRET", Section: secUpstream, Meaning: "the secret of `PORTAL_UPSTREAM_API_KEY`"},
		{Name: "PORTAL_UPSTREAM_TIMEOUT", Section: secUpstream, Meaning: "timeout of one call to area A (uploads: 15 minutes)"},
		{Name: "PORTAL_UPSTREAM_WEBHOOK_TOKEN", Section: secUpstream, Meaning: "the partner key the processor puts in status webhooks; required in production with a remote upstream"},
		{Name: "PORTAL_PAYMENTS_BASE_URL", Section: secUpstream, Default: "sandbox mode: the embedded sandbox's", Meaning: "the direct payment API (area B), ending with `/virtualterminal/v1`"},
		{Name: "PORTAL_TERMINALS_BASE_URL", Section: secUpstream, Default: "sandbox mode: the embedded sandbox's", Meaning: "the terminal cloud (area C)"},
		{Name: "PORTAL_SANDBOX_ADMIN_URL", Section: secUpstream, Meaning: "a remote sandbox whose admin API hands over boarded merchants' credentials and takes saved pricing codes (with remote mode and `PORTAL_SANDBOX_ADMIN_TOKEN`); refused in production"},
		{Name: "PORTAL_STORAGE", Section: secStorage, Meaning: "where documents are kept"},
		{Name: "PORTAL_STORAGE_DIR", Section: secStorage, Meaning: "local document storage"},
		{Name: "PORTAL_MAX_UPLOAD_BYTES", Section: secStorage, Default: "26214400 (25 MiB)", Meaning: "largest document accepted"},
		{Name: "PORTAL_S3_ENDPOINT", Section: secStorage, Meaning: "an S3-compatible endpoint (empty: AWS)"},
		{Name: "PORTAL_S3_REGION", Section: secStorage, Meaning: "the bucket's region"},
		{Name: "PORTAL_S3_BUCKET", Section: secStorage, Meaning: "the bucket; required with `PORTAL_STORAGE=s3`"},
		{Name: "PORTAL_S3_ACCESS_KEY_ID", Section: secStorage, Meaning: "access key (empty: the SDK's default credential chain)"},
		{Name: "PORTAL_S3_SECRET_ACCESS_KEY", Section: secStorage, Meaning: "secret of the access key"},
		{Name: "PORTAL_S3_PATH_STYLE", Section: secStorage, Meaning: "path-style addressing (most S3-compatible servers)"},
		{Name: "PORTAL_S3_SSE", Section: secStorage, Meaning: "server-side encryption requested on every object, on top of the portal's own"},
		{Name: "PORTAL_SMTP_HOST", Section: secMail, Meaning: "the SMTP server; with none, messages stay in Admin → Outbox"},
		{Name: "PORTAL_SMTP_PORT", Section: secMail, Meaning: "its port"},
		{Name: "PORTAL_SMTP_USERNAME", Section: secMail, Meaning: "user name, if the server asks for one"},
		{Name: "PORTAL_SMTP_PASSWORD", Section: secMail, Meaning: "its password"},
		{Name: "PORTAL_SMTP_FROM", Section: secMail, Meaning: "the sender address of every message"},
		{Name: "PORTAL_SMTP_TLS", Section: secMail, Meaning: "`mandatory` (STARTTLS or TLS required), `opportunistic`, or `none` (a local relay only)"},
		{Name: "PORTAL_PAYMENTS_DUPLICATE_WINDOW", Section: secPayments, Meaning: "a payment with the same last four and total as one this recent asks for an explicit \"charge again\""},
		{Name: "PORTAL_PAYMENTS_CHECK_GRACE", Section: secPayments, Meaning: "an unknown outcome becomes \"not charged\" only when read-backs this long after the request all find nothing"},
		{Name: "PORTAL_PAYMENTS_CHECK_EVERY", Section: secPayments, Meaning: "time between read-backs of an unknown outcome"},
		{Name: "PORTAL_PAYMENTS_CALL_TIMEOUT", Section: secPayments, Meaning: "one payment request with its retries; past it the outcome is checked in the background"},
		{Name: "PORTAL_TERMINALS_POLL_INTERVAL", Section: secTerms, Meaning: "time between two reads of a terminal transaction's result (at least 1 s)"},
		{Name: "PORTAL_TERMINALS_LEASE", Section: secTerms, Meaning: "how long a process holds the terminal transactions it follows; a dead process's are taken over after it (at least 3 s)"},
		{Name: "PORTAL_TERMINALS_MAX_READS", Section: secTerms, Meaning: "result reads in flight at once, all terminal transactions together"},
	}
}

func sandboxDocs() []Doc {
	return []Doc{
		{Name: "PORTAL_SANDBOX_LISTEN_ADDR", Section: secSandbox, Meaning: "where the in-process or standalone sandbox listens"},
		{Name: "PORTAL_SANDBOX_PUBLIC_URL", Section: secSandbox, Default: "the listener's address", Meaning: "base of the sandbox's links and presigned URLs (a proxy in front)"},
		{Name: "PORTAL_SANDBOX_ADMIN_TOKEN", Section: secSandbox, Default: "embedded: generated", Meaning: "guards the sandbox's admin controls; the portal's key to a remote sandbox's admin API"},
		{Name: "PORTAL_SANDBOX_DATA_DIR", Section: secSandbox, Meaning: "the sandbox's state (`state.db`) and uploaded objects"},
		{Name: "PORTAL_SANDBOX_TOKENS", Section: secSandbox, Default: "embedded: generated", Accepts: "comma-separated tokens", Meaning: "area A's long-lived bearer tokens (standalone)"},
		{Name: "PORTAL_SANDBOX_API_KEYS", Section: secSandbox, Accepts: "`key:secret,...`", Meaning: "key and secret pairs for area A's `POST /auth`"},
		{Name: "PORTAL_SANDBOX_WEBHOOK_URL", Section: secSandbox, Default: "embedded: the portal's", Meaning: "receiver of status webhooks"},
		{Name: "PORTAL_SANDBOX_WEBHOOK_TOKEN", Section: secSandbox, Default: "embedded: generated", Meaning: "sent as `token` in every webhook"},
		{Name: "PORTAL_SANDBOX_PRICING_CODES", Section: secSandbox, Accepts: "comma-separated codes", Meaning: "pricing codes issued at enrollment (more on the admin page)"},
		{Name: "PORTAL_SANDBOX_LATENCY", Section: secSandbox, Default: "0", Meaning: "delay added before every API answer of every area"},
		{Name: "PORTAL_SANDBOX_LATENCY_JITTER", Section: secSandbox, Default: "0", Meaning: "a random 0..jitter added to the latency"},
		{Name: "PORTAL_SANDBOX_ERROR_RATE", Section: secSandbox, Meaning: "share of API requests answered at once with an error"},
		{Name: "PORTAL_SANDBOX_DROP_RATE", Section: secSandbox, Meaning: "share of requests whose connection is closed before the sandbox acts"},
		{Name: "PORTAL_SANDBOX_URL_LIFETIME", Section: secSandbox, Default: "120s", Meaning: "a shorter presigned URL lifetime, whole seconds"},
		{Name: "PORTAL_SANDBOX_OMIT_PRESIGNED_URL", Section: secSandbox, Meaning: "the metadata POST answers only `fileId` (newer documentation)"},
		{Name: "PORTAL_SANDBOX_EXPAT_SECONDS", Section: secSandbox, Meaning: "`expAt` in seconds instead of milliseconds"},
		{Name: "PORTAL_SANDBOX_BASE_PATH", Section: secSandbox, Meaning: "area A's version segment"},
		{Name: "PORTAL_SANDBOX_TOKEN_LIFETIME", Section: secSandbox, Default: "24h", Meaning: "life of a token from `/auth`, by the sandbox clock"},
		{Name: "PORTAL_SANDBOX_MAX_FILE_SIZE", Section: secSandbox, Default: "536870912 (512 MiB)", Meaning: "largest `contentLength` the file metadata POST accepts (bytes)"},
		{Name: "PORTAL_SANDBOX_RETRY_AFTER", Section: secSandbox, Default: "1s", Meaning: "`Retry-After` of injected 429 and 503 answers"},
		{Name: "PORTAL_SANDBOX_ACT_THEN_DROP_RATE", Section: secSandbox, Meaning: "share of requests performed, then answered by closing the connection"},
		{Name: "PORTAL_SANDBOX_SEED", Section: secSandbox, Default: "random", Meaning: "makes the fault dice repeatable"},
		{Name: "PORTAL_SANDBOX_WEBHOOK_RETRY_DELAYS", Section: secSandbox, Default: "30s,2m,10m,30m,1h,2h,4h,8h,8h", Meaning: "waits before each repeat of a failed webhook, by the sandbox clock"},
		{Name: "PORTAL_SANDBOX_CLOCK", Section: secSandbox, Meaning: "`manual`: the clock moves only from the admin controls, and resumes where it stood after a restart"},
		{Name: "PORTAL_SANDBOX_UNDERWRITING_DELAY", Section: secSandbox, Default: "2m", Meaning: "time the back office takes to decide an accepted application; `off` for hand moves only"},
	}
}
