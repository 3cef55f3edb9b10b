package config

// APIConfig tunes the partner API (/api/v1).
type APIConfig struct {
	// RateLimit is how many requests one key may make a minute; more are answered
	// 429 with Retry-After (PORTAL_API_RATE_LIMIT, 600).
	RateLimit int
}

func readAPI(r *reader) APIConfig {
	return APIConfig{RateLimit: r.integer("PORTAL_API_RATE_LIMIT", 600, 1, 1_000_000)}
}
