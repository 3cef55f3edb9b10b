package config_test

import (
	"strings"
	"testing"

	"github.com/payportal/portal/internal/config"
)

// stock is a stock PostgreSQL: 100 connections, 3 reserved for superusers.
var stock = config.DatabaseLimits{MaxConnections: 100, Reserved: 3, DatabaseLimit: -1, RoleLimit: -1}

func budgetOf(t *testing.T, vars map[string]string, l config.DatabaseLimits) (config.ConnectionBudget, error) {
	t.Helper()
	all := valid()
	for k, v := range vars {
		all[k] = v
	}
	c, err := config.Load(lookup(all))
	if err != nil {
		t.Fatal(err)
	}
	return config.PoolBudget(c, l)
}

// Three replicas with the default pool (44 each then) outgrew a stock Postgres: a
// burst got "too many clients already". Their share now bounds the pool.
func TestPoolFollowsTheConnectionBudget(t *testing.T) {
	for _, tc := range []struct {
		name   string
		vars   map[string]string
		limits config.DatabaseLimits
		pool   int
	}{
		{"one replica keeps what the workers use", nil, stock, 44},
		{"three replicas share 100 - 3 - 5", map[string]string{"PORTAL_REPLICAS": "3"}, stock, 30},
		{"the headroom is configurable", map[string]string{"PORTAL_REPLICAS": "3", "PORTAL_DB_HEADROOM": "14"}, stock, 27},
		{"a database limit counts", map[string]string{"PORTAL_REPLICAS": "2"},
			config.DatabaseLimits{MaxConnections: 500, Reserved: 3, DatabaseLimit: 60, RoleLimit: -1}, 27},
		{"a role limit counts", map[string]string{"PORTAL_REPLICAS": "2"},
			config.DatabaseLimits{MaxConnections: 500, Reserved: 3, DatabaseLimit: 80, RoleLimit: 40}, 17},
		{"an explicit pool is kept", map[string]string{"PORTAL_REPLICAS": "3", "PORTAL_DB_MAX_CONNS": "40"}, stock, 40},
	} {
		b, err := budgetOf(t, tc.vars, tc.limits)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if b.Pool != tc.pool {
			t.Errorf("%s: pool %d, want %d (%s)", tc.name, b.Pool, tc.pool, b.Arithmetic())
		}
		if b.Pool*b.Replicas > tc.limits.MaxConnections-tc.limits.Reserved-b.Headroom && !b.Explicit {
			t.Errorf("%s: %d replicas of %d outgrow the budget", tc.name, b.Replicas, b.Pool)
		}
	}
}

func TestBudgetSpellsOutItsArithmetic(t *testing.T) {
	b, err := budgetOf(t, map[string]string{"PORTAL_REPLICAS": "3"}, stock)
	if err != nil {
		t.Fatal(err)
	}
	want := "max_connections 100 - 3 reserved - 5 headroom = 92; / 3 replicas = 30 per replica; pool 30 (the workers and web requests would use 44)"
	if got := b.Arithmetic(); got != want || !b.Fits() {
		t.Errorf("arithmetic %q (fits %v), want %q", got, b.Fits(), want)
	}
	b, _ = budgetOf(t, map[string]string{"PORTAL_REPLICAS": "3", "PORTAL_DB_MAX_CONNS": "44"},
		config.DatabaseLimits{MaxConnections: 100, Reserved: 3, DatabaseLimit: 90, RoleLimit: -1})
	if b.Fits() || !strings.HasPrefix(b.Arithmetic(), "min(max_connections 100 - 3 reserved, database limit 90) - 5 headroom = 85;") {
		t.Errorf("explicit pool over the budget: fits %v, %q", b.Fits(), b.Arithmetic())
	}
}

// A share too small for the workers stops the start with the arithmetic and
// the variables to change.
func TestBudgetTooSmallForTheWorkersIsRefused(t *testing.T) {
	_, err := budgetOf(t, map[string]string{"PORTAL_REPLICAS": "12"}, stock)
	if err == nil || !strings.Contains(err.Error(), "/ 12 replicas = 7 per replica") || !strings.Contains(err.Error(), "PORTAL_REPLICAS") {
		t.Fatalf("err = %v", err)
	}
	// A web-only replica needs no worker connections.
	if b, err := budgetOf(t, map[string]string{"PORTAL_REPLICAS": "10", "PORTAL_RUN_WORKERS": "false"}, stock); err != nil || b.Pool != 9 {
		t.Errorf("web-only: %v, %+v", err, b)
	}
}

// A stopping instance drains for 5 s in production unless told otherwise, and
// not at all in development (make run stops at once).
func TestDrainPeriod(t *testing.T) {
	for _, tc := range []struct {
		vars map[string]string
		want string
	}{
		{nil, "0s"},
		{map[string]string{"PORTAL_ENV": "production"}, "5s"},
		{map[string]string{"PORTAL_ENV": "production", "PORTAL_DRAIN_PERIOD": "0"}, "0s"},
		{map[string]string{"PORTAL_DRAIN_PERIOD": "12s"}, "12s"},
	} {
		all := valid()
		for k, v := range tc.vars {
			all[k] = v
		}
		c, err := config.Load(lookup(all))
		if err != nil {
			t.Fatal(err)
		}
		if c.DrainPeriod.String() != tc.want {
			t.Errorf("%v: drain %s, want %s", tc.vars, c.DrainPeriod, tc.want)
		}
	}
}

// X-Forwarded-For is believed only from listed proxies; trusting a proxy
// without saying which is refused.
func TestTrustedProxies(t *testing.T) {
	all := valid()
	all["PORTAL_TRUSTED_PROXIES"] = "10.0.0.0/24, 127.0.0.1, ::1"
	c, err := config.Load(lookup(all))
	if err != nil {
		t.Fatal(err)
	}
	if !c.TrustProxy || len(c.TrustedProxies) != 3 || c.TrustedProxies[1].String() != "127.0.0.1/32" || c.TrustedProxies[2].String() != "::1/128" {
		t.Errorf("proxies %v (trust %v)", c.TrustedProxies, c.TrustProxy)
	}
	for _, tc := range []struct{ vars map[string]string }{
		{map[string]string{"PORTAL_TRUST_PROXY": "true"}},
		{map[string]string{"PORTAL_TRUSTED_PROXIES": "0.0.0.0/0"}},
		{map[string]string{"PORTAL_TRUSTED_PROXIES": "proxy.internal"}},
		{map[string]string{"PORTAL_TRUSTED_PROXIES": "10.0.0.1", "PORTAL_TRUST_PROXY": "false"}},
	} {
		all := valid()
		for k, v := range tc.vars {
			all[k] = v
		}
		_, err := config.Load(lookup(all))
		if err == nil || !strings.Contains(err.Error(), "PORTAL_TRUST") {
			t.Errorf("%v: %v", tc.vars, err)
		}
	}
}
