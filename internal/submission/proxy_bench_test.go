package submission_test

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/payportal/portal/internal/submission"

	"github.com/payportal/portal/internal/testutil/testfiles"

	"github.com/payportal/portal/internal/documents"
	"github.com/payportal/portal/internal/models"
	upstream "github.com/payportal/portal/internal/upstream/accounts"
)

// Limits the benchmark checks: the proxy must reach 90% of a plain PUT's
// throughput, and the process's memory must not grow by 32 MiB or more,
// whatever the file's size.
const (
	minThroughputRatio = 0.9
	maxMemoryGrowth    = 32 << 20
)

// BenchmarkProxyStream streams a document from local storage to the
// sandbox's presigned URL through Proxy.PushDocument, and in the same run
// PUTs the same file to the same kind of URL with a plain net/http request.
// ns/op and MB/s are the proxy's; plain-MB/s, ratio (the proxy's best
// round over the plain PUT's best round, in throughput) and the peak memory
// growth of each path are reported as extra metrics. Run it with:
//
//	go test ./internal/submission -run '^$' -bench ProxyStream -benchtime 3x
func BenchmarkProxyStream(b *testing.B) {
	for _, size := range []int64{64 << 20, 256 << 20} {
		b.Run(fmt.Sprintf("%dMiB", size>>20), func(b *testing.B) { benchmarkProxyStream(b, size) })
	}
}

func benchmarkProxyStream(b *testing.B, size int64) {
	env := newProxyEnv(b, proxySetup{})
	ctx := context.Background()
	src := filepath.Join(b.TempDir(), "statement.pdf")
	writePseudoPDF(b, src, size)
	f, err := os.Open(src)
	if err != nil {
		b.Fatal(err)
	}
	doc := env.addDocument(b, "bank_statement", "statement.pdf", bufio.NewReader(f))
	_ = f.Close()

	// The plain PUT gets a file record of its own with the same metadata,
	// fresh for every round as the proxy's is, so both write a new object.
	meta := upstream.FileMetadata{
		FileType: upstream.FileTypeBankStatement, Name: doc.DisplayName, ContentLength: size, ContentType: doc.ContentType,
	}
	plainClient := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	proxy := env.proxy(nil, submission.ProxyOptions{})

	// Totals give the average throughput; the fastest round of each path
	// gives the ratio, which is less disturbed by other work on the machine.
	var plainTime, proxyTime time.Duration
	plainBest, proxyBest := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
	var plainPeak, proxyPeak uint64
	plain := func() {
		up, err := env.client.CreateFile(ctx, env.appID, meta)
		if err != nil {
			b.Fatal(err)
		}
		d, peak := measure(b, func() error { return plainPUT(plainClient, up.PresignedURL, src, size, doc.ContentType) })
		plainTime += d
		plainBest = min(plainBest, d)
		plainPeak = max(plainPeak, peak)
		if sum, ok := env.sandbox.FileSHA256(env.appID, up.FileID); !ok || sum != doc.SHA256 {
			b.Fatalf("plain PUT landed as %q, want %s", sum, doc.SHA256)
		}
	}
	pushed := func() {
		resetUpstreamStatus(b, env, doc)
		var fileID string
		b.StartTimer()
		d, peak := measure(b, func() error {
			var err error
			fileID, err = proxy.PushDocument(ctx, env.appID, doc)
			return err
		})
		b.StopTimer()
		proxyTime += d
		proxyBest = min(proxyBest, d)
		proxyPeak = max(proxyPeak, peak)
		if sum, ok := env.sandbox.FileSHA256(env.appID, fileID); !ok || sum != doc.SHA256 {
			b.Fatalf("upstream holds %q, want %s", sum, doc.SHA256)
		}
	}
	b.SetBytes(size)
	b.ResetTimer()
	b.StopTimer()
	for i := range b.N {
		// Alternate which goes first, so neither always meets a disk still
		// busy with the other's writes.
		if i%2 == 0 {
			plain()
			pushed()
		} else {
			pushed()
			plain()
		}
	}

	mb := float64(size) * float64(b.N) / 1e6
	ratio := plainBest.Seconds() / proxyBest.Seconds()
	b.ReportMetric(mb/plainTime.Seconds(), "plain-MB/s")
	b.ReportMetric(ratio, "ratio")
	b.ReportMetric(float64(proxyPeak)/(1<<20), "proxy-peak-MiB")
	b.ReportMetric(float64(plainPeak)/(1<<20), "plain-peak-MiB")
	b.Logf("%d MiB × %d: proxy %.0f MB/s (best %.0f), plain PUT %.0f MB/s (best %.0f), ratio of the best %.2f; peak memory growth proxy %.2f MiB, plain %.2f MiB",
		size>>20, b.N, mb/proxyTime.Seconds(), float64(size)/1e6/proxyBest.Seconds(), mb/plainTime.Seconds(),
		float64(size)/1e6/plainBest.Seconds(), ratio, float64(proxyPeak)/(1<<20), float64(plainPeak)/(1<<20))
	if ratio < minThroughputRatio {
		b.Errorf("proxy throughput is %.2f of a plain PUT's, want at least %.2f", ratio, minThroughputRatio)
	}
	if proxyPeak >= maxMemoryGrowth {
		b.Errorf("memory grew by %.1f MiB while streaming %d MiB, want less than %d MiB", float64(proxyPeak)/(1<<20), size>>20, maxMemoryGrowth>>20)
	}
}

// plainPUT sends the file to the URL with nothing but net/http.
func plainPUT(client *http.Client, url, path string, size int64, contentType string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	req, err := http.NewRequest(http.MethodPut, url, f)
	if err != nil {
		return err
	}
	req.ContentLength = size
	req.Header.Set("Content-Type", contentType)
	res, err := client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("plain PUT: %s", res.Status)
	}
	return nil
}

// resetUpstreamStatus makes the document pending again, so the next push
// sends it instead of skipping it.
func resetUpstreamStatus(b *testing.B, env *proxyEnv, doc models.Document) {
	err := env.db.Gorm.Model(&models.Document{}).Where("id = ?", doc.ID).
		Updates(map[string]any{"upstream_status": documents.UpstreamPending, "upstream_file_id": nil, "upstream_uploaded_at": nil}).Error
	if err != nil {
		b.Fatal(err)
	}
}

// memoryMetrics are the runtime metrics whose growth the benchmark bounds:
// the bytes of live (and not yet swept) heap objects, and the Go runtime's
// memory as the operating system sees it (everything mapped, minus what was
// handed back), which also covers stacks and runtime buffers.
var memoryMetrics = []string{
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/total:bytes",
	"/memory/classes/heap/released:bytes",
}

// memoryLevels reads the heap objects and the runtime's retained memory.
func memoryLevels() (heap, retained uint64) {
	s := make([]metrics.Sample, len(memoryMetrics))
	for i, name := range memoryMetrics {
		s[i].Name = name
	}
	metrics.Read(s)
	return s[0].Value.Uint64(), s[1].Value.Uint64() - s[2].Value.Uint64()
}

// measure runs fn and returns how long it took and how far the runtime's
// memory rose above its level at the start, sampled every millisecond.
func measure(b *testing.B, fn func() error) (time.Duration, uint64) {
	runtime.GC()
	baseHeap, baseRetained := memoryLevels()
	var peak uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			heap, retained := memoryLevels()
			if heap > baseHeap {
				peak = max(peak, heap-baseHeap)
			}
			if retained > baseRetained {
				peak = max(peak, retained-baseRetained)
			}
			select {
			case <-tick.C:
			case <-stop:
				return
			}
		}
	}()
	start := time.Now()
	err := fn()
	elapsed := time.Since(start)
	close(stop)
	<-done
	if err != nil {
		b.Fatal(err)
	}
	return elapsed, peak
}

// writePseudoPDF writes size bytes that start like a PDF, in chunks, so the
// benchmark's own set-up holds no file in memory.
func writePseudoPDF(b *testing.B, path string, size int64) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	r := rand.New(rand.NewPCG(uint64(size), 7))
	buf := make([]byte, 1<<20)
	for written := int64(0); written < size; {
		for i := 0; i < len(buf); i += 8 {
			v := r.Uint64()
			for j := 0; j < 8 && i+j < len(buf); j++ {
				buf[i+j] = byte(v >> (8 * j))
			}
		}
		if written == 0 {
			copy(buf, testfiles.SamplePDF)
		}
		n := min(int64(len(buf)), size-written)
		if _, err := w.Write(buf[:n]); err != nil {
			b.Fatal(err)
		}
		written += n
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
}
