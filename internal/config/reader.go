package config

import (
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// reader parses variables and collects problems instead of stopping at the first,
// so one start tells the operator everything that is wrong.
type reader struct {
	lookup func(string) (string, bool)
	errs   []string
}

func (r *reader) fail(name, msg string) { r.errs = append(r.errs, name+" "+msg) }

func (r *reader) raw(name string) (string, bool) {
	v, ok := r.lookup(name)
	if !ok {
		return "", false
	}
	return strings.TrimSpace(v), true
}

func (r *reader) str(name, def string) string {
	if v, ok := r.raw(name); ok && v != "" {
		return v
	}
	return def
}

// secret reads NAME, or the contents of the file named by NAME_FILE.
func (r *reader) secret(name, def string) string {
	v, hasValue := r.raw(name)
	path, hasFile := r.raw(name + "_FILE")
	switch {
	case hasValue && v != "" && hasFile && path != "":
		r.fail(name, "and "+name+"_FILE are both set; set only one")
		return ""
	case hasFile && path != "":
		b, err := os.ReadFile(path)
		if err != nil {
			r.fail(name+"_FILE", fmt.Sprintf("cannot be read: %v", err))
			return ""
		}
		return strings.TrimSpace(string(b))
	case hasValue && v != "":
		return v
	}
	return def
}

func (r *reader) integer(name string, def, min, max int) int {
	v, ok := r.raw(name)
	if !ok || v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		r.fail(name, fmt.Sprintf("must be a whole number, not %q", v))
		return def
	}
	if n < min || n > max {
		r.fail(name, fmt.Sprintf("must be between %d and %d, not %d", min, max, n))
		return def
	}
	return n
}

func (r *reader) boolean(name string, def bool) bool {
	v, ok := r.raw(name)
	if !ok || v == "" {
		return def
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		r.fail(name, fmt.Sprintf("must be true or false, not %q", v))
		return def
	}
	return b
}

func (r *reader) duration(name string, def time.Duration) time.Duration {
	v, ok := r.raw(name)
	if !ok || v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		r.fail(name, fmt.Sprintf("must be a positive duration such as 30m or 12h, not %q", v))
		return def
	}
	return d
}

func (r *reader) oneOf(name, def string, allowed ...string) string {
	v := r.str(name, def)
	for _, a := range allowed {
		if v == a {
			return v
		}
	}
	r.fail(name, fmt.Sprintf("must be one of %s, not %q", strings.Join(allowed, ", "), v))
	return def
}

func (r *reader) url(name, def string) *url.URL {
	v := r.str(name, def)
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		r.fail(name, fmt.Sprintf("must be an absolute http(s) URL, not %q", v))
		u, _ = url.Parse("http://127.0.0.1:8080")
	}
	return u
}
