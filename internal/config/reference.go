package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Entry is one variable of the configuration reference: what the reader met,
// with its section and meaning from docs().
type Entry struct {
	Var
	Section string
	Meaning string
}

// scenarios are the environments the reference reads the configuration in, so
// that variables read only in some modes (remote upstream, S3 storage,
// production) are met too.
func scenarios() []map[string]string {
	base := map[string]string{
		"PORTAL_DATABASE_URL":    "postgres://localhost/portal",
		"PORTAL_ENCRYPTION_KEYS": "k1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
	}
	with := func(extra map[string]string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	return []map[string]string{
		base,
		with(map[string]string{"PORTAL_UPSTREAM_MODE": "remote", "PORTAL_UPSTREAM_BASE_URL": "https://upstream.example/v2",
			"PORTAL_UPSTREAM_TOKEN": "t", "PORTAL_ENV": "production", "PORTAL_UPSTREAM_WEBHOOK_TOKEN": "w"}),
		with(map[string]string{"PORTAL_STORAGE": "s3", "PORTAL_S3_BUCKET": "b", "PORTAL_DATABASE_URL": "", "DATABASE_URL": "postgres://localhost/portal"}),
	}
}

// Reference lists every variable the portal reads, in the order of docs(),
// and fails when a variable read has no description or a description names a
// variable nobody reads: the reference cannot drift from the code.
func Reference() ([]Entry, error) {
	seen := map[string]Var{}
	for _, vars := range scenarios() {
		r := &reader{lookup: func(k string) (string, bool) { v, ok := vars[k]; return v, ok }}
		read(r)
		for _, v := range r.seen {
			if _, ok := seen[v.Name]; !ok {
				seen[v.Name] = v
			}
		}
	}
	var out []Entry
	var problems []string
	for _, d := range docs() {
		v, ok := seen[d.Name]
		if !ok {
			problems = append(problems, d.Name+" is described but never read")
			continue
		}
		delete(seen, d.Name)
		if d.Default != "" {
			v.Default = d.Default
		}
		if d.Accepts != "" {
			v.Accepts = d.Accepts
		}
		out = append(out, Entry{Var: v, Section: d.Section, Meaning: d.Meaning})
	}
	for _, name := range slices.Sorted(maps.Keys(seen)) {
		problems = append(problems, name+" is read but has no description in internal/config/docs.go")
	}
	if len(problems) > 0 {
		return out, fmt.Errorf("configuration reference: %s", strings.Join(problems, "; "))
	}
	return out, nil
}

// Markdown renders the reference as docs/configuration.md.
func Markdown(entries []Entry) string {
	var b strings.Builder
	b.WriteString(referenceIntro)
	section := ""
	for _, e := range entries {
		if e.Section != section {
			section = e.Section
			fmt.Fprintf(&b, "\n## %s\n\n| Variable | Default | Accepts | Meaning |\n|---|---|---|---|\n", section)
		}
		name := "`" + e.Name + "`"
		if e.Secret {
			name += " (secret)"
		}
		def := e.Default
		if def == "" {
			def = "—"
		} else if !strings.ContainsAny(def, " ") {
			def = "`" + def + "`"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", name, def, e.Accepts, e.Meaning)
	}
	return b.String()
}

const referenceIntro = `# Configuration reference

<!-- Generated from internal/config (docs.go and the readers) by ` + "`make docs`" + `; do not edit by hand.
     A test fails when this file and the code differ. -->

Everything comes from environment variables, read once at start into one typed struct. A bad
value stops the start with a message naming the variable, and every problem is reported at
once. A variable marked *secret* may instead be read from a file: set ` + "`NAME_FILE=/path`" + `
instead of ` + "`NAME`" + ` (setting both is refused). ` + "`make run`" + ` needs none of them.
`
