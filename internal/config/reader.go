package config

import (
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// markSecret records that name may come from a file (NAME_FILE).
func (r *reader) markSecret(name string) {
	for i := range r.seen {
		if r.seen[i].Name == name {
			r.seen[i].Secret = true
		}
	}
}

// showDuration writes a default duration as people write it: 30s, 15m, 12h, 1h30m.
func showDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// reader parses variables and collects problems instead of stopping at the first,
// so one start tells the operator everything that is wrong.
type reader struct {
	lookup func(string) (string, bool)
	errs   []string
	// seen records every variable read, in order, for the configuration reference.
	seen []Var
}

// Var is one variable as the reader met it: what it accepts and its default.
type Var struct {
	Name    string
	Accepts string
	Default string
	// Secret variables may be read from the file named by NAME_FILE instead.
	Secret bool
}

// note records a variable the first time it is read; a reader that calls another
// (oneOf reads through str) notes first, so the more precise description wins.
func (r *reader) note(name, accepts, def string) {
	for _, v := range r.seen {
		if v.Name == name {
			return
		}
	}
	r.seen = append(r.seen, Var{Name: name, Accepts: accepts, Default: def})
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
	r.note(name, "text", def)
	if v, ok := r.raw(name); ok && v != "" {
		return v
	}
	return def
}

// secret reads NAME, or the contents of the file named by NAME_FILE.
func (r *reader) secret(name, def string) string {
	r.note(name, "text", def)
	r.markSecret(name)
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

func (r *reader) integer(name string, def, lowest, highest int) int {
	r.note(name, fmt.Sprintf("whole number, %d to %d", lowest, highest), strconv.Itoa(def))
	v, ok := r.raw(name)
	if !ok || v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		r.fail(name, fmt.Sprintf("must be a whole number, not %q", v))
		return def
	}
	if n < lowest || n > highest {
		r.fail(name, fmt.Sprintf("must be between %d and %d, not %d", lowest, highest, n))
		return def
	}
	return n
}

func (r *reader) boolean(name string, def bool) bool {
	r.note(name, "true or false", strconv.FormatBool(def))
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
	r.note(name, "duration (30s, 15m, 12h)", showDuration(def))
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

// durationBetween is duration with bounds, both allowed.
func (r *reader) durationBetween(name string, def, lowest, highest time.Duration) time.Duration {
	r.note(name, "duration, "+showDuration(lowest)+" to "+showDuration(highest), showDuration(def))
	d := r.duration(name, def)
	if d < lowest || d > highest {
		r.fail(name, fmt.Sprintf("must be between %s and %s, not %s", lowest, highest, d))
		return def
	}
	return d
}

func (r *reader) oneOf(name, def string, allowed ...string) string {
	r.note(name, strings.Join(allowed, ", "), def)
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
	r.note(name, "absolute http(s) URL", def)
	v := r.str(name, def)
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		r.fail(name, fmt.Sprintf("must be an absolute http(s) URL, not %q", v))
		u, _ = url.Parse("http://127.0.0.1:8080")
	}
	return u
}

// durationOrZero reads an optional duration where zero means "none".
func (r *reader) durationOrZero(name string) time.Duration {
	r.note(name, "duration; 0 or empty for none", "")
	v, ok := r.raw(name)
	if !ok || v == "" || v == "0" {
		return 0
	}
	return r.duration(name, 0)
}

// share reads a fraction between 0 and 1.
func (r *reader) share(name string) float64 {
	r.note(name, "share, 0 to 1", "0")
	v, ok := r.raw(name)
	if !ok || v == "" {
		return 0
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 0 || f > 1 {
		r.fail(name, fmt.Sprintf("must be a share between 0 and 1 such as 0.2, not %q", v))
		return 0
	}
	return f
}

// list splits a comma-separated value, dropping empty items.
func (r *reader) list(v string) []string {
	var out []string
	for _, item := range strings.Split(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// pairs reads "key:value,key2:value2".
func (r *reader) pairs(name, v string) map[string]string {
	out := map[string]string{}
	for _, item := range r.list(v) {
		k, val, ok := strings.Cut(item, ":")
		if !ok || k == "" || val == "" {
			r.fail(name, "must be a list of key:secret pairs separated by commas")
			return nil
		}
		out[strings.TrimSpace(k)] = strings.TrimSpace(val)
	}
	return out
}

// durations reads a comma-separated list of positive durations such as
// "30s,2m,10m"; empty gives nil.
func (r *reader) durations(name string) []time.Duration {
	r.note(name, "comma-separated durations", "")
	v, _ := r.raw(name)
	var out []time.Duration
	for _, item := range r.list(v) {
		d, err := time.ParseDuration(item)
		if err != nil || d <= 0 {
			r.fail(name, fmt.Sprintf("must be a comma-separated list of positive durations such as 30s,2m,10m, not %q", v))
			return nil
		}
		out = append(out, d)
	}
	return out
}

// durationOrOff reads a duration where "off" means none (-1) and empty
// means def.
func (r *reader) durationOrOff(name string, def time.Duration) time.Duration {
	r.note(name, "duration, or off", showDuration(def))
	v, ok := r.raw(name)
	switch {
	case !ok || v == "":
		return def
	case v == "off":
		return -1
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		r.fail(name, fmt.Sprintf("must be a duration such as 2m, or off, not %q", v))
		return def
	}
	return d
}

// uint64Value reads a whole number of 0 or more.
func (r *reader) uint64Value(name string) uint64 {
	r.note(name, "whole number, 0 or more", "0")
	v, ok := r.raw(name)
	if !ok || v == "" {
		return 0
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		r.fail(name, fmt.Sprintf("must be a whole number of 0 or more, not %q", v))
		return 0
	}
	return n
}
