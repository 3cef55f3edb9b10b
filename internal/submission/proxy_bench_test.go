package submission_test

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/documents"
	"github.com/payportal/portal/internal/models"
	sandbox "github.com/payportal/portal/internal/sandbox/accounts"
	"github.com/payportal/portal/internal/testutil/apptest"
	"github.com/payportal/portal/internal/testutil/cputime"
	"github.com/payportal/portal/internal/testutil/memprobe"
	"github.com/payportal/portal/internal/testutil/testfiles"
	upstream "github.com/payportal/portal/internal/upstream/accounts"
)

// proxySizes are the documents BenchmarkProxyStream sends: a scan, a long
// statement, and the largest document the portal accepts (25 MiB).
var proxySizes = []int64{1 << 20, 5 << 20, 25 << 20}

// BenchmarkProxyStream sends a stored document to the sandbox's presigned
// URL as a push does, and in the same round sends the same bytes with plain
// net/http, against a sandbox that answers every request after 100 ms. The
// document goes through the portal's own upload path and storage
// (env.App.Documents.Attach, env.App.DocumentStorage) and the proxy the
// portal wires (env.App.DocumentProxy), so whatever they do to stored bytes
// (encryption at rest and its decryption on the way out) is in the
// measurement. Each round:
//
//   - proxy: Proxy.PushDocument: record the attempt, POST the file metadata,
//     open the stored document, stream it to the presigned URL, record the
//     outcome; the sandbox's SHA-256 of what arrived is checked;
//   - plain: POST the same metadata, then PUT the same bytes from a plain
//     file (*os.File, which the kernel sends with sendfile).
//
// The two go one after the other, in an order that alternates, so both meet
// the machine in the same state. Reported per size: the median over rounds
// of the ratio of the proxy's throughput to the plain PUT's (goal ≥ 0.9, see
// BENCHMARKS.md) and its lowest round, each path's median MB/s, and the peak
// growth of the process's memory during a transfer. Run with -benchtime 15x.
func BenchmarkProxyStream(b *testing.B) {
	for _, size := range proxySizes {
		b.Run(fmt.Sprintf("%dMiB", size>>20), func(b *testing.B) { benchmarkProxyStream(b, size) })
	}
}

func benchmarkProxyStream(b *testing.B, size int64) {
	env := apptest.New(b, apptest.WithoutWorkers(),
		apptest.WithSandbox(func(o *sandbox.Options) { o.Faults = sandbox.Faults{Latency: benchLatency} }))
	ctx := context.Background()
	rep, _ := env.CreateUser(b, "rep@bench.example", models.RoleSalesRep)
	a := storeApplication(b, env.App, createPricingModel(b, env.DB.Gorm), rep, readyDraft("Proxy Bench"), 0)
	src := filepath.Join(b.TempDir(), "statement.pdf")
	writePseudoPDF(b, src, size)
	f, err := os.Open(src)
	if err != nil {
		b.Fatal(err)
	}
	doc, err := env.App.Documents.Attach(ctx, rep, a, "bank_statement", bufio.NewReader(f), "statement.pdf")
	_ = f.Close()
	if err != nil {
		b.Fatal(err)
	}
	client := env.App.Upstream
	upID, err := client.StartApplication(ctx, upstream.StartRequest{ExternalApplicationID: a.ID.String(), PricingCode: pricingCode})
	if err != nil {
		b.Fatal(err)
	}
	meta := upstream.FileMetadata{
		FileType: upstream.FileTypeBankStatement, Name: doc.DisplayName, ContentLength: size, ContentType: doc.ContentType,
	}
	plainClient := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	proxy := env.App.DocumentProxy

	var ratios, proxyMBs, plainMBs []float64
	var plainPeak, proxyPeak uint64
	mb := float64(size) / 1e6
	plain := func() time.Duration {
		d, peak := measure(b, func() error {
			up, err := client.CreateFile(ctx, upID, meta)
			if err != nil {
				return err
			}
			if err := plainPUT(plainClient, up.PresignedURL, src, size, doc.ContentType); err != nil {
				return err
			}
			if sum, ok := env.Sandbox.Server.FileSHA256(upID, up.FileID); !ok || sum != doc.SHA256 {
				return fmt.Errorf("plain PUT landed as %q, want %s", sum, doc.SHA256)
			}
			return nil
		})
		plainPeak = max(plainPeak, peak)
		return d
	}
	pushed := func() time.Duration {
		resetUpstreamStatus(b, env.DB, doc.ID)
		d, peak := measure(b, func() error {
			fileID, err := proxy.PushDocument(ctx, upID, *doc)
			if err != nil {
				return err
			}
			if sum, ok := env.Sandbox.Server.FileSHA256(upID, fileID); !ok || sum != doc.SHA256 {
				return fmt.Errorf("upstream holds %q, want %s", sum, doc.SHA256)
			}
			return nil
		})
		proxyPeak = max(proxyPeak, peak)
		return d
	}
	load := cputime.LoadAverage()
	for i := 0; b.Loop(); i++ {
		var p, q time.Duration
		if i%2 == 0 {
			q, p = plain(), pushed()
		} else {
			p, q = pushed(), plain()
		}
		ratios = append(ratios, q.Seconds()/p.Seconds())
		proxyMBs = append(proxyMBs, mb/p.Seconds())
		plainMBs = append(plainMBs, mb/q.Seconds())
	}
	b.Logf("%d MiB × %d rounds: ratio median %.3f (lowest %.3f); proxy %.1f MB/s, plain %.1f MB/s (medians); peak memory growth proxy %.2f MiB, plain %.2f MiB; load average %s, then %s",
		size>>20, len(ratios), median(ratios), slices.Min(ratios), median(proxyMBs), median(plainMBs),
		float64(proxyPeak)/(1<<20), float64(plainPeak)/(1<<20), load, cputime.LoadAverage())
	b.ReportMetric(median(ratios), "ratio")
	b.ReportMetric(slices.Min(ratios), "ratio-lowest")
	b.ReportMetric(median(proxyMBs), "proxy-MB/s")
	b.ReportMetric(median(plainMBs), "plain-MB/s")
	b.ReportMetric(float64(proxyPeak)/(1<<20), "proxy-peak-MiB")
	b.ReportMetric(float64(plainPeak)/(1<<20), "plain-peak-MiB")
	b.ReportMetric(0, "ns/op")
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
func resetUpstreamStatus(b *testing.B, db *database.DB, id uuid.UUID) {
	err := db.Gorm.Model(&models.Document{}).Where("id = ?", id).
		Updates(map[string]any{"upstream_status": documents.UpstreamPending, "upstream_file_id": nil, "upstream_uploaded_at": nil}).Error
	if err != nil {
		b.Fatal(err)
	}
}

// measure runs fn under memprobe: its time and how far the runtime's memory rose
// above its level at the start.
func measure(b *testing.B, fn func() error) (time.Duration, uint64) {
	r, err := memprobe.Measure(fn)
	if err != nil {
		b.Fatal(err)
	}
	return r.Elapsed, r.Peak()
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
