package insights

import (
	"cmp"
	"slices"
	"strconv"
	"time"

	"github.com/google/uuid"
)

// Journey is one application's way through the funnel: when it reached each step
// (nil: not reached), who owns it and its pricing model.
type Journey struct {
	ID          uuid.UUID
	Name        string
	OwnerID     uuid.UUID
	OwnerName   string
	PricingID   *uuid.UUID
	PricingName string
	At          [stepCount]*time.Time
}

// reached reports whether j reached s: for a step of the main path, s or any later one
// of it (a webhook may be lost; boarding implies acceptance).
func (j *Journey) reached(s Step) bool {
	if j.At[s] != nil {
		return true
	}
	if i := slices.Index(mainPath, s); i >= 0 {
		for _, later := range mainPath[i+1:] {
			if j.At[later] != nil {
				return true
			}
		}
	}
	return false
}

// last is the furthest step of the main path j reached, and when.
func (j *Journey) last() (Step, time.Time) {
	for i := len(mainPath) - 1; i >= 0; i-- {
		if at := j.At[mainPath[i]]; at != nil {
			return mainPath[i], *at
		}
	}
	return StepCreated, time.Time{}
}

// ended reports whether j left the path: boarded, declined or withdrawn.
func (j *Journey) ended() bool {
	return j.At[StepBoarded] != nil || j.At[StepDeclined] != nil || j.At[StepWithdrawn] != nil
}

// Transition is a span between two steps.
type Transition struct{ From, To Step }

// Title names the span: "Created → Submitted".
func (t Transition) Title() string { return t.From.Title() + " → " + t.To.Title() }

// Key names it in CSV.
func (t Transition) Key() string { return t.From.Key() + "_to_" + t.To.Key() }

// transitions are the spans the report times: each step of the main path to the next,
// and creation to boarding.
func transitions() []Transition {
	var out []Transition
	for i := 1; i < len(mainPath); i++ {
		out = append(out, Transition{mainPath[i-1], mainPath[i]})
	}
	return append(out, Transition{StepCreated, StepBoarded})
}

// StepCount is how many applications reached a step.
type StepCount struct {
	Step  Step
	Count int
	// Share is the count over the applications created, in percent.
	Share float64
}

// TimeRow is the spread of one transition in one group.
type TimeRow struct {
	Transition Transition
	Spread
}

// Group is the times of one group of applications: all of them, one rep's, one
// pricing model's.
type Group struct {
	Name string
	// Created and Boarded count its applications and those boarded.
	Created, Boarded int
	Times            []TimeRow
}

// Stall is the applications waiting at a step: reached it, went no further, and
// neither boarded, declined nor withdrawn.
type Stall struct {
	Step Step
	// Waiting is how many wait; Over how many have waited longer than the 90th
	// percentile of the step's usual time to the next; Longest the longest wait.
	Waiting, Over int
	Median        time.Duration
	Longest       time.Duration
	// Usual is the 90th percentile of the step's time to the next (0: no data).
	Usual time.Duration
}

// Waiting is one application waiting, for the list of the longest waits.
type Waiting struct {
	ID    uuid.UUID
	Name  string
	Owner string
	Step  Step
	Since time.Time
	For   time.Duration
}

// Report is the whole of the figures for a period.
type Report struct {
	Funnel []StepCount
	Exits  []StepCount
	// All is every application's times; ByRep and ByPricing break them down.
	All       Group
	ByRep     []Group
	ByPricing []Group
	Stalls    []Stall
	// Longest lists the applications waiting longest, at most longestShown.
	Longest []Waiting
}

// longestShown bounds the list of the longest waits.
const longestShown = 10

// Compute works out the report of journeys at now.
func Compute(journeys []Journey, now time.Time) Report {
	r := Report{}
	created := len(journeys)
	share := func(n int) float64 {
		if created == 0 {
			return 0
		}
		return 100 * float64(n) / float64(created)
	}
	for _, s := range mainPath {
		n := 0
		for i := range journeys {
			if journeys[i].reached(s) {
				n++
			}
		}
		r.Funnel = append(r.Funnel, StepCount{Step: s, Count: n, Share: share(n)})
	}
	for _, s := range exits {
		n := 0
		for i := range journeys {
			if journeys[i].At[s] != nil {
				n++
			}
		}
		r.Exits = append(r.Exits, StepCount{Step: s, Count: n, Share: share(n)})
	}
	r.All = group("All applications", journeys)
	r.ByRep = groupsBy(journeys, func(j *Journey) (string, string) { return j.OwnerID.String(), j.OwnerName })
	r.ByPricing = groupsBy(journeys, func(j *Journey) (string, string) {
		if j.PricingID == nil {
			return "", "No pricing model"
		}
		return j.PricingID.String(), j.PricingName
	})
	r.Stalls, r.Longest = stalls(journeys, r.All, now)
	return r
}

// durations lists the times of a transition among journeys: only those that reached
// both steps, with both recorded, in order.
func durations(journeys []Journey, t Transition) []time.Duration {
	var out []time.Duration
	for i := range journeys {
		from, to := journeys[i].At[t.From], journeys[i].At[t.To]
		if from != nil && to != nil && !to.Before(*from) {
			out = append(out, to.Sub(*from))
		}
	}
	return out
}

func group(name string, journeys []Journey) Group {
	g := Group{Name: name, Created: len(journeys)}
	for i := range journeys {
		if journeys[i].At[StepBoarded] != nil {
			g.Boarded++
		}
	}
	for _, t := range transitions() {
		g.Times = append(g.Times, TimeRow{Transition: t, Spread: spread(durations(journeys, t))})
	}
	return g
}

// groupsBy breaks journeys down by a key, ordered by name.
func groupsBy(journeys []Journey, key func(*Journey) (id, name string)) []Group {
	byKey := map[string][]Journey{}
	names := map[string]string{}
	for i := range journeys {
		id, name := key(&journeys[i])
		byKey[id] = append(byKey[id], journeys[i])
		names[id] = name
	}
	var out []Group
	for id, js := range byKey {
		out = append(out, group(names[id], js))
	}
	slices.SortFunc(out, func(a, b Group) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// stalls finds the applications waiting at each step before boarding.
func stalls(journeys []Journey, all Group, now time.Time) ([]Stall, []Waiting) {
	usual := map[Step]time.Duration{}
	for _, tr := range all.Times {
		if tr.Transition.To == tr.Transition.From+1 && tr.N > 0 {
			usual[tr.Transition.From] = tr.P90
		}
	}
	waits := map[Step][]time.Duration{}
	var longest []Waiting
	for i := range journeys {
		j := &journeys[i]
		if j.ended() {
			continue
		}
		step, since := j.last()
		if since.IsZero() {
			continue
		}
		d := max(now.Sub(since), 0)
		waits[step] = append(waits[step], d)
		longest = append(longest, Waiting{ID: j.ID, Name: j.Name, Owner: j.OwnerName, Step: step, Since: since, For: d})
	}
	var out []Stall
	for _, s := range mainPath[:len(mainPath)-1] {
		ds := waits[s]
		st := Stall{Step: s, Waiting: len(ds), Usual: usual[s]}
		if len(ds) > 0 {
			sp := spread(ds)
			st.Median = sp.Median
			st.Longest = slices.Max(ds)
		}
		for _, d := range ds {
			if st.Usual > 0 && d > st.Usual {
				st.Over++
			}
		}
		out = append(out, st)
	}
	slices.SortFunc(longest, func(a, b Waiting) int { return cmp.Compare(b.For, a.For) })
	if len(longest) > longestShown {
		longest = longest[:longestShown]
	}
	return out, longest
}

func formatFloat(v float64, decimals int) string { return strconv.FormatFloat(v, 'f', decimals, 64) }

// MedianWords is the median wait in words.
func (s Stall) MedianWords() string { return Words(s.Median) }

// LongestWords is the longest wait in words.
func (s Stall) LongestWords() string { return Words(s.Longest) }

// ForWords is how long it has waited, in words.
func (w Waiting) ForWords() string { return Words(w.For) }
