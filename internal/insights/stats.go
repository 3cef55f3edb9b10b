package insights

import (
	"math"
	"slices"
	"time"

	"github.com/payportal/portal/internal/view"
)

// percentile is the p-th percentile (0 ≤ p ≤ 1) of durations by linear interpolation
// between the closest ranks, as PostgreSQL's percentile_cont: the median of 1, 2, 3, 10
// days is 2.5 days, its 90th percentile 7.9 days. It sorts ds.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	rank := p * float64(len(ds)-1)
	lo, hi := int(math.Floor(rank)), int(math.Ceil(rank))
	frac := rank - float64(lo)
	return ds[lo] + time.Duration(math.Round(frac*float64(ds[hi]-ds[lo])))
}

// Spread is the median and 90th percentile of a set of durations.
type Spread struct {
	N           int
	Median, P90 time.Duration
}

func spread(ds []time.Duration) Spread {
	if len(ds) == 0 {
		return Spread{}
	}
	c := slices.Clone(ds)
	return Spread{N: len(c), Median: percentile(c, .5), P90: percentile(c, .9)}
}

// Words writes a duration for people: "45 minutes", "5.5 hours", "3.2 days".
func Words(d time.Duration) string { return view.Duration(d) }

// MedianWords is the median in words.
func (s Spread) MedianWords() string { return Words(s.Median) }

// P90Words is the 90th percentile in words.
func (s Spread) P90Words() string { return Words(s.P90) }
