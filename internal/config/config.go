// Package config reads the portal's settings from PORTAL_* environment variables
// into one typed struct. Secrets may instead be read from a file named by the
// variable with a _FILE suffix, so they need not sit in the environment.
package config

import (
	"net/netip"
	"net/url"
	"strings"
	"time"
)

// Config is every setting of the portal, validated at start-up.
type Config struct {
	Env        string // "development" or "production"
	LogLevel   string
	ListenAddr string
	PublicURL  *url.URL
	// Instance names this process among the replicas, in the job queue's
	// records (which instance worked a job) and the terminal follower's leases
	// (PORTAL_INSTANCE_NAME, default the host's name).
	Instance string
	// TrustProxy says the portal runs behind the proxies of TrustedProxies.
	TrustProxy bool
	// TrustedProxies are the proxies whose X-Forwarded-For and X-Forwarded-Proto
	// are believed (PORTAL_TRUSTED_PROXIES); see readTrustedProxies.
	TrustedProxies []netip.Prefix

	DatabaseURL string
	// DBMaxConns is the pool this replica would use if the database allowed it:
	// PORTAL_DB_MAX_CONNS, or what the workers and web requests need. Unless set
	// explicitly, PoolBudget caps it at this replica's share of the database's
	// connections.
	DBMaxConns int32
	// DBMaxConnsExplicit says PORTAL_DB_MAX_CONNS was set: the pool is then that
	// size whatever the budget (a warning says when it does not fit).
	DBMaxConnsExplicit bool
	// Replicas is how many portal processes share the database at most, the
	// extra one of a rolling restart included (PORTAL_REPLICAS).
	Replicas int
	// DBHeadroom is the connections left for people and tools: an admin's psql,
	// a backup, a migration run by hand (PORTAL_DB_HEADROOM).
	DBHeadroom int

	// DrainPeriod is how long a stopping instance keeps serving, with /readyz
	// answering 503 "draining", before its listener closes: longer than its
	// balancer takes to notice (PORTAL_DRAIN_PERIOD; 5s in production, 0 in
	// development).
	DrainPeriod time.Duration

	SessionIdleTimeout time.Duration
	// PasswordHashConcurrency bounds the password hashes computed at once
	// (0: the number of CPUs).
	PasswordHashConcurrency int
	SessionLifetime         time.Duration

	// EncryptionKeys is the key ring for personal data at rest: "id:base64key,...".
	EncryptionKeys      string
	EncryptionActiveKey string

	AdminEmail    string
	AdminPassword string

	ResellerName string
	// MetricsToken, when set, must come as a bearer token with every /metrics request.
	MetricsToken string

	// SeedExamples adds example pricing models at start when there are none at
	// all, so that a fresh portal is usable at once (make run sets it).
	SeedExamples bool

	Upstream  UpstreamConfig
	Processor ProcessorConfig
	Sandbox   SandboxConfig
	Storage   StorageConfig
	SMTP      SMTPConfig
	Workers   WorkerConfig
	// Terminals tunes the following of card-terminal transactions.
	Terminals TerminalsConfig
	Payments  PaymentsConfig
	// API tunes the partner API.
	API APIConfig
	// Webhooks tunes the partner webhooks' deliveries (internal/webhooks).
	Webhooks WebhooksConfig
}

// WorkerConfig configures the background job workers (River) of this instance.
type WorkerConfig struct {
	// Run makes this instance work jobs; a web-only instance still enqueues them.
	Run bool
	// Concurrency bounds the housekeeping jobs (the default queue) this instance works
	// at once.
	Concurrency int
	// PushConcurrency bounds the pushes upstream this instance works at once. A push
	// spends nearly all its time waiting on the upstream, so many run at once.
	PushConcurrency int
	// MailConcurrency bounds the e-mail deliveries this instance works at once, on a
	// queue of their own so they never wait behind pushes.
	MailConcurrency int
	// WebhookConcurrency bounds the partner webhooks' deliveries this instance works at
	// once, on a queue of their own so a slow receiver never holds up pushes or e-mails.
	WebhookConcurrency int
	// LeaseTTL is how long a running job's lease lasts without being renewed: the jobs
	// of a process that died are worked again about this long after it died.
	LeaseTTL time.Duration
	// JobTimeout cancels a job that runs longer, unless its worker says otherwise.
	JobTimeout time.Duration
	// RescueAfter is when a job still marked running (its worker died) is retried.
	RescueAfter time.Duration
	// ShutdownTimeout is how long a stopping instance lets running jobs finish
	// before cancelling them.
	ShutdownTimeout time.Duration
}

// UpstreamConfig says how to reach the upstream account application API.
type UpstreamConfig struct {
	// Mode "sandbox" runs the sandbox in-process on Sandbox.ListenAddr; "remote"
	// talks to BaseURL.
	Mode         string
	BaseURL      string
	Token        string
	APIKey       string
	APISecret    string
	Timeout      time.Duration
	WebhookToken string
}

// SandboxConfig configures the sandbox upstream, in-process or standalone.
// In-process, the portal generates the API token and the webhook token itself.
type SandboxConfig struct {
	ListenAddr    string
	PublicURL     string
	AdminToken    string
	DataDir       string
	Tokens        []string
	APIKeys       map[string]string
	WebhookURL    string
	WebhookToken  string
	PricingCodes  []string
	Latency       time.Duration
	LatencyJitter time.Duration
	ErrorRate     float64
	DropRate      float64
	URLLifetime   time.Duration
	OmitURL       bool
	ExpAtSeconds  bool

	BasePath           string          // PORTAL_SANDBOX_BASE_PATH, default /v2
	TokenLifetime      time.Duration   // 0: the sandbox's 24 h
	MaxFileSize        int64           // bytes; 0: the sandbox's 512 MiB
	RetryAfter         time.Duration   // 0: 1 s
	ActThenDropRate    float64         // share of API requests acted on, then dropped
	Seed               uint64          // 0: random
	WebhookRetryDelays []time.Duration // nil: the sandbox's day of retries
	ManualClock        bool            // PORTAL_SANDBOX_CLOCK=manual
	UnderwritingDelay  time.Duration   // 0: the sandbox's 2 min; -1: off
}

// StorageConfig says where uploaded documents are kept.
type StorageConfig struct {
	Driver          string // "local" or "s3"
	LocalDir        string
	MaxUploadBytes  int64
	S3Endpoint      string
	S3Region        string
	S3Bucket        string
	S3AccessKeyID   string
	S3SecretKey     string
	S3UsePathStyle  bool
	S3ServerSideEnc string
}

// SMTPConfig configures outgoing e-mail. With no Host, messages stay in the outbox.
type SMTPConfig struct {
	Host      string
	Port      int
	Username  string
	Password  string
	From      string
	TLSPolicy string // "mandatory", "opportunistic" or "none"
}

// IsProduction reports whether the portal runs in production mode.
func (c *Config) IsProduction() bool { return c.Env == "production" }

// SecureCookies reports whether cookies must always carry the Secure flag,
// because the public address is https.
func (c *Config) SecureCookies() bool { return c.PublicURL.Scheme == "https" }

// Load reads the configuration through lookup (os.LookupEnv in production) and
// returns every problem found, each naming its variable.
func Load(lookup func(string) (string, bool)) (*Config, error) {
	r := &reader{lookup: lookup}
	c := read(r)
	if len(r.errs) > 0 {
		return nil, &Error{Problems: r.errs}
	}
	return c, nil
}

// read reads every variable through r, which collects the problems. The
// readers run in the order the problems are reported.
func read(r *reader) *Config {
	c := &Config{
		Env:                     r.oneOf("PORTAL_ENV", "development", "development", "production"),
		LogLevel:                r.oneOf("PORTAL_LOG_LEVEL", "info", "debug", "info", "warn", "error"),
		ListenAddr:              r.str("PORTAL_LISTEN_ADDR", "127.0.0.1:8080"),
		SessionIdleTimeout:      r.duration("PORTAL_SESSION_IDLE_TIMEOUT", 30*time.Minute),
		SessionLifetime:         r.duration("PORTAL_SESSION_LIFETIME", 12*time.Hour),
		PasswordHashConcurrency: r.integer("PORTAL_PASSWORD_HASH_CONCURRENCY", 0, 0, 1024),
		EncryptionKeys:          r.secret("PORTAL_ENCRYPTION_KEYS", ""),
		EncryptionActiveKey:     r.str("PORTAL_ENCRYPTION_ACTIVE_KEY", ""),
		AdminEmail:              r.str("PORTAL_ADMIN_EMAIL", ""),
		AdminPassword:           r.secret("PORTAL_ADMIN_PASSWORD", ""),
		ResellerName:            r.str("PORTAL_RESELLER_NAME", "Acme Payments"),
		MetricsToken:            r.secret("PORTAL_METRICS_TOKEN", ""),
		SeedExamples:            r.boolean("PORTAL_SEED_EXAMPLES", false),
	}
	c.PublicURL = r.url("PORTAL_PUBLIC_URL", "http://"+c.ListenAddr)
	c.Instance = readInstance(r)
	c.TrustedProxies = readTrustedProxies(r)
	c.TrustProxy = len(c.TrustedProxies) > 0
	c.DrainPeriod = readDrainPeriod(r, c.IsProduction())
	c.DatabaseURL = readDatabaseURL(r)
	c.EncryptionActiveKey = activeKey(r, c.EncryptionKeys, c.EncryptionActiveKey)
	if c.SessionIdleTimeout > c.SessionLifetime {
		r.fail("PORTAL_SESSION_IDLE_TIMEOUT", "must not be longer than PORTAL_SESSION_LIFETIME")
	}
	c.Upstream = readUpstream(r)
	c.Sandbox = readSandbox(r)
	c.Terminals = readTerminals(r)
	c.Processor = readProcessor(r, c)
	c.Payments = readPayments(r)
	c.API = readAPI(r)
	c.Webhooks = readWebhooks(r, c.IsProduction())
	c.Storage = readStorage(r)
	c.SMTP = SMTPConfig{
		Host:      r.str("PORTAL_SMTP_HOST", ""),
		Port:      r.integer("PORTAL_SMTP_PORT", 587, 1, 65535),
		Username:  r.str("PORTAL_SMTP_USERNAME", ""),
		Password:  r.secret("PORTAL_SMTP_PASSWORD", ""),
		From:      r.str("PORTAL_SMTP_FROM", "onboarding@example.com"),
		TLSPolicy: r.oneOf("PORTAL_SMTP_TLS", "mandatory", "mandatory", "opportunistic", "none"),
	}
	c.Workers = readWorkers(r)
	readPool(r, c)
	if c.IsProduction() && c.Upstream.WebhookToken == "" && c.Upstream.Mode == "remote" {
		r.fail("PORTAL_UPSTREAM_WEBHOOK_TOKEN", "is required in production so status webhooks can be checked")
	}
	return c
}

// readDrainPeriod reads how long a stopping portal keeps answering; production
// waits 5 s unless told.
func readDrainPeriod(r *reader, production bool) time.Duration {
	d := r.durationOrZero("PORTAL_DRAIN_PERIOD")
	if v, ok := r.raw("PORTAL_DRAIN_PERIOD"); production && (!ok || v == "") {
		d = 5 * time.Second
	}
	return d
}

// readDatabaseURL reads the database's address, PORTAL_DATABASE_URL or else
// DATABASE_URL; one of them is required.
func readDatabaseURL(r *reader) string {
	u := r.secret("PORTAL_DATABASE_URL", "")
	if u == "" {
		u = r.secret("DATABASE_URL", "")
	}
	if u == "" {
		r.fail("PORTAL_DATABASE_URL", "is required (or DATABASE_URL): a postgres:// connection URL")
	}
	return u
}

// activeKey checks the key ring, which is required, and returns the key that
// encrypts: the one named, or the ring's only key.
func activeKey(r *reader, keys, active string) string {
	if keys == "" {
		r.fail("PORTAL_ENCRYPTION_KEYS", "is required: a key ring like \"k1:<base64 of 32 random bytes>\" (make run creates one under .data/)")
		return active
	}
	if active != "" {
		return active
	}
	// With a single key there is no doubt which one encrypts.
	if id, _, ok := strings.Cut(keys, ":"); ok && !strings.Contains(keys, ",") {
		return strings.TrimSpace(id)
	}
	r.fail("PORTAL_ENCRYPTION_ACTIVE_KEY", "is required when PORTAL_ENCRYPTION_KEYS holds several keys")
	return active
}

// readUpstream reads how the portal reaches the processor's account API; a
// remote one needs its address and credentials.
func readUpstream(r *reader) UpstreamConfig {
	u := UpstreamConfig{
		Mode:         r.oneOf("PORTAL_UPSTREAM_MODE", "sandbox", "sandbox", "remote"),
		BaseURL:      r.str("PORTAL_UPSTREAM_BASE_URL", ""),
		Token:        r.secret("PORTAL_UPSTREAM_TOKEN", ""),
		APIKey:       r.str("PORTAL_UPSTREAM_API_KEY", ""),
		APISecret:    r.secret("PORTAL_UPSTREAM_API_SECRET", ""),
		Timeout:      r.duration("PORTAL_UPSTREAM_TIMEOUT", 30*time.Second),
		WebhookToken: r.secret("PORTAL_UPSTREAM_WEBHOOK_TOKEN", ""),
	}
	if u.Mode != "remote" {
		return u
	}
	if u.BaseURL == "" {
		r.fail("PORTAL_UPSTREAM_BASE_URL", "is required when PORTAL_UPSTREAM_MODE=remote")
	}
	if u.Token == "" && (u.APIKey == "" || u.APISecret == "") {
		r.fail("PORTAL_UPSTREAM_TOKEN", "or PORTAL_UPSTREAM_API_KEY with PORTAL_UPSTREAM_API_SECRET is required when PORTAL_UPSTREAM_MODE=remote")
	}
	return u
}

// readStorage reads where documents are kept; S3 needs its bucket.
func readStorage(r *reader) StorageConfig {
	s := StorageConfig{
		Driver:          r.oneOf("PORTAL_STORAGE", "local", "local", "s3"),
		LocalDir:        r.str("PORTAL_STORAGE_DIR", ".data/documents"),
		MaxUploadBytes:  int64(r.integer("PORTAL_MAX_UPLOAD_BYTES", 25<<20, 1, 1<<34)),
		S3Endpoint:      r.str("PORTAL_S3_ENDPOINT", ""),
		S3Region:        r.str("PORTAL_S3_REGION", "us-east-1"),
		S3Bucket:        r.str("PORTAL_S3_BUCKET", ""),
		S3AccessKeyID:   r.str("PORTAL_S3_ACCESS_KEY_ID", ""),
		S3SecretKey:     r.secret("PORTAL_S3_SECRET_ACCESS_KEY", ""),
		S3UsePathStyle:  r.boolean("PORTAL_S3_PATH_STYLE", false),
		S3ServerSideEnc: r.oneOf("PORTAL_S3_SSE", "AES256", "AES256", "aws:kms", "none"),
	}
	if s.Driver == "s3" && s.S3Bucket == "" {
		r.fail("PORTAL_S3_BUCKET", "is required when PORTAL_STORAGE=s3")
	}
	return s
}

// readWorkers reads the background workers' settings; a running job must time
// out before it is rescued.
func readWorkers(r *reader) WorkerConfig {
	w := WorkerConfig{
		Run:                r.boolean("PORTAL_RUN_WORKERS", true),
		Concurrency:        r.integer("PORTAL_WORKER_CONCURRENCY", 4, 1, 1000),
		PushConcurrency:    r.integer("PORTAL_PUSH_CONCURRENCY", 64, 1, 1000),
		MailConcurrency:    r.integer("PORTAL_MAIL_CONCURRENCY", 16, 1, 1000),
		WebhookConcurrency: r.integer("PORTAL_WEBHOOK_CONCURRENCY", 16, 1, 1000),
		LeaseTTL:           r.durationBetween("PORTAL_JOB_LEASE", 15*time.Second, 3*time.Second, 10*time.Minute),
		JobTimeout:         r.duration("PORTAL_JOB_TIMEOUT", 5*time.Minute),
		RescueAfter:        r.duration("PORTAL_JOB_RESCUE_AFTER", 15*time.Minute),
		ShutdownTimeout:    r.duration("PORTAL_WORKER_SHUTDOWN_TIMEOUT", 25*time.Second),
	}
	if w.RescueAfter <= w.JobTimeout {
		r.fail("PORTAL_JOB_RESCUE_AFTER", "must be longer than PORTAL_JOB_TIMEOUT, or running jobs would be retried while still running")
	}
	return w
}

// readPool reads the database pool's size and what it shares the server with.
// The pool serves web requests and the jobs. Housekeeping jobs may hold a connection
// for most of their run; a push, an e-mail or a webhook holds one only while it reads
// or records (a few milliseconds around calls of 100 ms or more), so a quarter of
// their slots is ample. The rest is for web requests.
func readPool(r *reader, c *Config) {
	c.DBMaxConns = int32(r.integer("PORTAL_DB_MAX_CONNS", defaultPoolSize(c.Workers), 4, 500))
	if v, ok := r.raw("PORTAL_DB_MAX_CONNS"); ok && v != "" {
		c.DBMaxConnsExplicit = true
	}
	c.Replicas = r.integer("PORTAL_REPLICAS", 1, 1, 100)
	c.DBHeadroom = r.integer("PORTAL_DB_HEADROOM", 5, 0, 1000)
	if c.Workers.Run && int(c.DBMaxConns) < minimumPool(c.Workers) {
		r.fail("PORTAL_DB_MAX_CONNS", "must be larger than PORTAL_WORKER_CONCURRENCY plus a quarter of PORTAL_MAIL_CONCURRENCY, so web requests still get database connections while every worker is busy")
	}
}

// webConnections is the share of the default pool kept for web requests.
const webConnections = 16

// defaultPoolSize sizes the database pool to the workers: every housekeeping worker, a
// quarter of the push, e-mail and webhook workers (a push, an e-mail or a webhook holds a
// connection only to read and record, never while it waits on the upstream, the SMTP
// server or the receiver), and webConnections for web requests.
func defaultPoolSize(w WorkerConfig) int {
	n := webConnections
	if w.Run {
		n += w.Concurrency + (w.MailConcurrency+3)/4 + (w.PushConcurrency+3)/4 + (w.WebhookConcurrency+3)/4
	}
	return min(n, 500)
}

// Error lists every configuration problem found, one per variable.
type Error struct{ Problems []string }

func (e *Error) Error() string {
	return "invalid configuration:\n  " + strings.Join(e.Problems, "\n  ")
}
