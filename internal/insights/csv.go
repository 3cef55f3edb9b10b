package insights

import (
	"encoding/csv"
	"io"
	"strconv"
	"time"
)

// csvHeader is the header of the CSV: one row per figure, the columns that do not
// apply to a kind of figure left empty.
var csvHeader = []string{"section", "breakdown", "group", "step", "applications", "share_of_created_pct",
	"median_hours", "p90_hours", "waiting_longer_than_p90", "longest_wait_hours"}

// WriteCSV writes a report's numbers as CSV: the funnel, the times (overall, per rep,
// per pricing model) and the stalls.
func WriteCSV(w io.Writer, r Report) error {
	cw := csv.NewWriter(w)
	write := func(rec ...string) { _ = cw.Write(rec) }
	write(csvHeader...)
	for _, s := range append(append([]StepCount{}, r.Funnel...), r.Exits...) {
		write("funnel", "", "", s.Step.Key(), strconv.Itoa(s.Count), formatFloat(s.Share, 1), "", "", "", "")
	}
	times := func(breakdown string, g Group) {
		for _, t := range g.Times {
			median, p90 := "", ""
			if t.N > 0 {
				median, p90 = hours(t.Median), hours(t.P90)
			}
			write("time", breakdown, g.Name, t.Transition.Key(), strconv.Itoa(t.N), "", median, p90, "", "")
		}
	}
	times("all", r.All)
	for _, g := range r.ByRep {
		times(ByRep, g)
	}
	for _, g := range r.ByPricing {
		times(ByPricing, g)
	}
	for _, s := range r.Stalls {
		write("stalled", "", "", s.Step.Key(), strconv.Itoa(s.Waiting), "", hours(s.Median), hours(s.Usual), strconv.Itoa(s.Over), hours(s.Longest))
	}
	cw.Flush()
	return cw.Error()
}

func hours(d time.Duration) string { return formatFloat(d.Hours(), 2) }
