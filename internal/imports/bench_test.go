package imports_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/apptest"
	"github.com/payportal/portal/internal/testutil/memprobe"
)

// BenchmarkImport runs the whole import of a generated file with 10% bad rows, as the
// pages and the job do it (Service.Upload: parse, seal, store and check every row;
// Service.Start; Service.Import, which the job runs), into a database that already
// holds the drafts of earlier rounds. Each round imports new merchants. Reported: the
// median, slowest and first (cold) round in ms, the median of the upload and check
// alone (the rest is the import job), the peak growth of the live heap and
// of the memory the Go runtime holds during a round, the process's peak RSS (reset
// before each round), and the load average. Run it with:
//
//	go test ./internal/imports -run '^$' -bench BenchmarkImport -benchtime 5x
func BenchmarkImport(b *testing.B) {
	for _, rows := range []int{1000, 5000} {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) { benchmarkImport(b, rows) })
	}
}

func benchmarkImport(b *testing.B, rows int) {
	env := apptest.New(b, apptest.WithoutWorkers())
	ctx := context.Background()
	owner, _ := env.CreateUser(b, "importing.rep@example.com", models.RoleSalesRep)
	load := loadAverage()
	var times, uploads []time.Duration
	var heapPeak, heldPeak, rssPeak uint64
	b.ResetTimer()
	b.StopTimer()
	for i := range b.N {
		file := generateFrom(i*rows, rows, 10)
		resetPeakRSS()
		b.StartTimer()
		var uploaded time.Duration
		d, heap, held := measure(b, func() error {
			start := time.Now()
			batch, err := env.App.Imports.Upload(ctx, owner, "", "bench.csv", bytes.NewReader(file.CSV))
			if err != nil {
				return err
			}
			uploaded = time.Since(start)
			if err := env.App.Imports.Start(ctx, owner, batch.ID, "skip"); err != nil {
				return err
			}
			return env.App.Imports.Import(ctx, batch.ID)
		})
		b.StopTimer()
		times, uploads = append(times, d), append(uploads, uploaded)
		heapPeak, heldPeak, rssPeak = max(heapPeak, heap), max(heldPeak, held), max(rssPeak, peakRSS())
		var n int
		if err := env.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM applications WHERE owner_id = $1`, owner.ID).Scan(&n); err != nil || n != (i+1)*len(file.Good) {
			b.Fatalf("%d drafts after round %d (%v)", n, i+1, err)
		}
	}
	sorted := slices.Clone(times)
	slices.Sort(sorted)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(sorted[len(sorted)/2]), "median-ms")
	b.ReportMetric(ms(sorted[len(sorted)-1]), "max-ms")
	b.ReportMetric(ms(times[0]), "cold-ms")
	slices.Sort(uploads)
	b.ReportMetric(ms(uploads[len(uploads)/2]), "upload-median-ms")
	b.ReportMetric(float64(heapPeak)/(1<<20), "heap-peak-MiB")
	b.ReportMetric(float64(heldPeak)/(1<<20), "held-peak-MiB")
	b.ReportMetric(float64(rssPeak)/(1<<20), "rss-peak-MiB")
	b.Logf("%d rows × %d rounds: %v; load average before %s, after %s", rows, b.N, times, load, loadAverage())
}

// measure runs fn under memprobe: its time and the rises of the live heap and of the
// memory the runtime holds from the system.
func measure(b *testing.B, fn func() error) (time.Duration, uint64, uint64) {
	r, err := memprobe.Measure(fn)
	if err != nil {
		b.Fatal(err)
	}
	return r.Elapsed, r.HeapPeak, r.HeldPeak
}

// resetPeakRSS resets the process's peak resident set (VmHWM) to its current size.
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSS reads the process's peak resident set since the last reset.
func peakRSS() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}
