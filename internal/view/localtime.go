package view

import (
	"bytes"
	"sync"
	"time"
)

// Times are shown in the viewer's time zone. Templates are parsed once and
// shared by every request, so a template function cannot know who is
// looking: formatTime and formatDate write the instant between two marks
// of Unicode's private use area instead, and the renderer, which knows the
// signed-in user, replaces each one in the finished page with the time in
// the user's zone. A page without a signed-in user shows UTC.
const (
	markStart    = "\uE000"
	markEnd      = "\uE001"
	kindDateTime = 'T'
	kindDate     = 'D'
	kindClock    = 'C'
)

// TimeLayout and DateLayout are the one format of times and dates on every
// page: unambiguous in every locale, with the zone named.
const (
	TimeLayout  = "2006-01-02 15:04 MST"
	DateLayout  = "2006-01-02"
	ClockLayout = "15:04 MST"
)

// LocalTime is t as text that pages show in the viewer's zone, in TimeLayout,
// for messages built outside templates (the renderer writes the zone in).
func LocalTime(t time.Time) string { return markTime(kindDateTime, t) }

// LocalClock is LocalTime's hour and minute alone, in ClockLayout: for a
// message about something that happened moments ago.
func LocalClock(t time.Time) string { return markTime(kindClock, t) }

func markTime(kind byte, t time.Time) string {
	return markStart + string(kind) + t.UTC().Format(time.RFC3339) + markEnd
}

// zones caches loaded time zones by name.
type zones struct{ m sync.Map }

// location returns the zone named, or UTC when the name is empty or unknown.
func (z *zones) location(name string) *time.Location {
	if name == "" {
		return time.UTC
	}
	if loc, ok := z.m.Load(name); ok {
		return loc.(*time.Location)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		loc = time.UTC
	}
	z.m.Store(name, loc)
	return loc
}

// localize replaces every marked instant in html with its text in loc.
func localize(html []byte, loc *time.Location) []byte {
	start := []byte(markStart)
	if !bytes.Contains(html, start) {
		return html
	}
	end := []byte(markEnd)
	out := make([]byte, 0, len(html))
	for {
		i := bytes.Index(html, start)
		if i < 0 {
			return append(out, html...)
		}
		j := bytes.Index(html[i:], end)
		if j < 0 {
			return append(out, html...)
		}
		out = append(out, html[:i]...)
		body := html[i+len(start) : i+j]
		html = html[i+j+len(end):]
		if len(body) < 2 {
			continue
		}
		t, err := time.Parse(time.RFC3339, string(body[1:]))
		if err != nil {
			continue
		}
		layout := TimeLayout
		switch body[0] {
		case kindDate:
			layout = DateLayout
		case kindClock:
			layout = ClockLayout
		}
		out = append(out, t.In(loc).Format(layout)...)
	}
}
