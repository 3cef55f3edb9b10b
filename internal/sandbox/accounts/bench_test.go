package accounts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	bolt "go.etcd.io/bbolt"
)

// BenchmarkStateSize measures whether the area stays as fast as it fills:
// the same fixed request mix against three sandboxes holding 0, 1,000 and
// 10,000 applications, in paired rounds: each worker runs every mix
// against the three sandboxes back to back, in a rotating order, so the
// load of the (shared) machine at any moment hits the three alike. It reports the
// median and p99 answer times per size and, per size, the ratio to the
// empty sandbox, computed round by round: the median ratio and its range
// over the rounds. BENCHMARKS.md ("Sandbox answer times as it fills")
// writes it up. Run it with -benchtime 1x: one call runs every round.
func BenchmarkStateSize(b *testing.B) {
	const (
		rounds  = 16
		mixes   = 32 // request mixes per size and round
		workers = 4  // partners calling at once
	)
	sizes := []int{0, 1000, 10000}
	envs := make([]*benchEnv, len(sizes))
	for i, n := range sizes {
		envs[i] = newBenchEnv(b, n)
	}
	lat := make([][][]time.Duration, len(sizes)) // size → round → answer times
	for i := range lat {
		lat[i] = make([][]time.Duration, rounds)
	}
	b.ResetTimer()
	for r := range rounds {
		for i, d := range pairedRound(b, envs, mixes, workers, r) {
			lat[i][r] = d
		}
	}
	b.StopTimer()

	med, p99 := func(d []time.Duration) float64 { return ms(quantile(d, 0.5)) }, func(d []time.Duration) float64 { return ms(quantile(d, 0.99)) }
	for i, n := range sizes {
		var all []time.Duration
		var medRatio, p99Ratio []float64
		for r := range rounds {
			all = append(all, lat[i][r]...)
			medRatio = append(medRatio, med(lat[i][r])/med(lat[0][r]))
			p99Ratio = append(p99Ratio, p99(lat[i][r])/p99(lat[0][r]))
		}
		label := sizeLabel(n)
		b.ReportMetric(med(all), "median-ms-"+label)
		b.ReportMetric(p99(all), "p99-ms-"+label)
		if i > 0 {
			b.ReportMetric(median(medRatio), "median-ratio-"+label)
			b.ReportMetric(median(p99Ratio), "p99-ratio-"+label)
		}
		mlo, mhi := bootstrapMedian(medRatio)
		plo, phi := bootstrapMedian(p99Ratio)
		b.Logf("%6s apps: median %.2f ms, p99 %.2f ms over %d answers; cold first round: median %.2f, p99 %.2f; "+
			"ratio to empty over %d rounds: median %.3f (95%% CI %.3f..%.3f, range %.3f..%.3f), p99 %.3f (95%% CI %.3f..%.3f, range %.3f..%.3f)",
			label, med(all), p99(all), len(all), med(lat[i][0]), p99(lat[i][0]), rounds,
			median(medRatio), mlo, mhi, slices.Min(medRatio), slices.Max(medRatio),
			median(p99Ratio), plo, phi, slices.Min(p99Ratio), slices.Max(p99Ratio))
	}
}

func sizeLabel(n int) string {
	if n >= 1000 {
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// quantile is the nearest-rank quantile of d.
func quantile(d []time.Duration, q float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.5) - 1
	return s[max(0, min(i, len(s)-1))]
}

// bootstrapMedian is a 95% percentile-bootstrap interval of the median of
// v (2,000 resamples, fixed seed).
func bootstrapMedian(v []float64) (float64, float64) {
	rng := rand.New(rand.NewPCG(1, 2))
	meds := make([]float64, 2000)
	sample := make([]float64, len(v))
	for i := range meds {
		for j := range sample {
			sample[j] = v[rng.IntN(len(v))]
		}
		meds[i] = median(sample)
	}
	slices.Sort(meds)
	return meds[49], meds[1949]
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// benchEnv is one sandbox on a real socket, its state on disk.
type benchEnv struct {
	s      *Server
	url    string
	client *http.Client
	seeded []string // ids of the seeded applications
}

const benchToken = "bench-token"

func newBenchEnv(b *testing.B, n int) *benchEnv {
	b.Helper()
	dir := b.TempDir()
	s, err := New(Options{Tokens: []string{benchToken}, AdminToken: "admin", StateFile: filepath.Join(dir, "state.db"),
		ObjectDir: filepath.Join(dir, "objects"), PricingCodes: []string{"P1"}})
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	b.Cleanup(func() { ts.Close(); _ = s.Close() })
	if err := s.SetPublicBaseURL(ts.URL); err != nil {
		b.Fatal(err)
	}
	e := &benchEnv{s: s, url: ts.URL, client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}}
	e.seed(b, n)
	return e
}

// seed stores n applications as the API would have left them: full
// details (about 1.2 kB), one or two uploaded files, histories, a third
// linked, some decided; 1,000 to a transaction.
func (e *benchEnv) seed(b *testing.B, n int) {
	rng := rand.New(rand.NewPCG(uint64(n), 1))
	now := time.Now().UTC()
	for start := 0; start < n; start += 1000 {
		err := e.s.db.Update(func(tx *bolt.Tx) error {
			c := &change{tx: tx, now: now}
			for i := start; i < min(n, start+1000); i++ {
				order := tx.Bucket([]byte(bOrder))
				seq, _ := order.NextSequence()
				a := &appRecord{ID: uuid.NewString(), ExternalID: uuid.NewString(), PricingCode: "P1", Seq: seq,
					Created: now, Updated: now, Status: StatusInitiated, Files: []fileRecord{}}
				a.setValues(benchDetails(i))
				a.History = []StatusChange{{Status: StatusInitiated, At: now, By: "partner"}}
				for f := range 1 + rng.IntN(2) {
					a.Files = append(a.Files, fileRecord{ID: uuid.NewString(), FileType: "bankStatement", Name: fmt.Sprintf("statement-%d.pdf", f),
						ContentType: "application/pdf", ContentLength: 200 << 10, Created: now, Uploaded: true, UploadedAt: now,
						SHA256: strings.Repeat("ab", 32)})
				}
				if rng.IntN(3) == 0 {
					a.Linked, a.Status = true, []Status{StatusRequested, StatusInProgress, StatusProcessing, StatusBoarded}[rng.IntN(4)]
					a.History = append(a.History, StatusChange{Status: a.Status, At: now, By: "merchant"})
				}
				if err := order.Put(seqKey(seq), []byte(a.ID)); err != nil {
					return err
				}
				if err := tx.Bucket([]byte(bExternal)).Put([]byte(a.ExternalID), []byte(a.ID)); err != nil {
					return err
				}
				if err := saveApp(c.tx, a); err != nil {
					return err
				}
				e.seeded = append(e.seeded, a.ID)
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// benchDetails is a realistic application body.
func benchDetails(i int) map[string]any {
	raw := fmt.Sprintf(`{
	"business": {"dba": "Corner Coffee %d", "goodsAndServices": "Coffee and pastries", "phone": "5125550134",
		"email": "owner%d@corner.example", "websiteUrl": "https://corner%d.example", "mcc": "5814", "monthlyVolume": "62000.00",
		"averageTicket": "12.50", "highTicket": "250.00",
		"address": {"line1": "%d Main St", "city": "Austin", "state": "TX", "postalCode": "78701"}},
	"legalEntity": {"type": "llc", "name": "Corner Coffee %d LLC", "tin": "123456789", "yearsInBusiness": 4,
		"address": {"line1": "%d Main St", "city": "Austin", "state": "TX", "postalCode": "78701"}},
	"owners": [{"firstName": "Ada", "lastName": "Lovelace", "title": "Owner", "percentOwnership": 100, "ssn": "123456789",
		"dob": "1980-12-10", "phone": "5125550135", "email": "ada%d@corner.example",
		"address": {"line1": "9 Elm St", "city": "Austin", "state": "TX", "postalCode": "78702"}}],
	"banking": {"depositAccount": "000123456789", "depositRouting": "011401533", "accountType": "Checking"},
	"contact": {"name": "Ada Lovelace", "email": "ada%d@corner.example", "phone": "5125550135"}}`, i, i, i, i, i, i, i, i)
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		panic(err)
	}
	return m
}

// pairedRound runs mixes request mixes on workers goroutines, each mix
// against every sandbox back to back (the order rotating with the mix and
// the round), and returns every answer time per sandbox.
func pairedRound(b *testing.B, envs []*benchEnv, mixes, workers, round int) [][]time.Duration {
	var mu sync.Mutex
	out := make([][]time.Duration, len(envs))
	var wg sync.WaitGroup
	jobs := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				for k := range envs {
					e := (k + i + round) % len(envs)
					d := envs[e].mix(b, round*mixes+i)
					mu.Lock()
					out[e] = append(out[e], d...)
					mu.Unlock()
				}
			}
		}()
	}
	for i := range mixes {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return out
}

// mix is the fixed request mix of one partner onboarding one merchant, and
// of the reads that go on beside it: start with details, PATCH, file
// metadata, GET file, upload, link, link again, the merchant's first visit,
// an admin read of it, and an admin read of an older application.
func (e *benchEnv) mix(b *testing.B, i int) []time.Duration {
	var out []time.Duration
	timed := func(method, url string, body []byte, ctype string, want int) []byte {
		req, _ := http.NewRequest(method, url, bytes.NewReader(body))
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		req.Header.Set("Authorization", "Bearer "+benchToken)
		if strings.Contains(url, "/_sandbox/admin/") {
			req.SetBasicAuth("admin", "admin")
		}
		start := time.Now()
		resp, err := e.client.Do(req)
		if err != nil {
			b.Fatalf("%s %s: %v", method, url, err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		out = append(out, time.Since(start))
		if resp.StatusCode != want {
			b.Fatalf("%s %s: %d %s, want %d", method, url, resp.StatusCode, raw, want)
		}
		return raw
	}
	field := func(raw []byte, k string) string {
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		s, _ := m[k].(string)
		return s
	}
	details := benchDetails(i)
	start := map[string]any{"externalApplicationId": uuid.NewString(), "pricingCode": "P1", "business": details["business"],
		"legalEntity": details["legalEntity"], "owners": details["owners"]}
	body, _ := json.Marshal(start)
	api := e.url + "/v2/application/"
	id := field(timed(http.MethodPost, api+"start", body, "application/json", http.StatusCreated), "applicationId")
	body, _ = json.Marshal(map[string]any{"banking": details["banking"], "contact": details["contact"]})
	timed(http.MethodPatch, api+id, body, "application/json", http.StatusNoContent)
	content := bytes.Repeat([]byte("%PDF"), 1024)
	body, _ = json.Marshal(map[string]any{"fileType": "bankStatement", "name": "statement.pdf", "contentLength": fmt.Sprint(len(content)), "contentType": "application/pdf"})
	fileID := field(timed(http.MethodPost, api+id+"/file", body, "application/json", http.StatusCreated), "fileId")
	u := field(timed(http.MethodGet, api+id+"/file/"+fileID, nil, "", http.StatusOK), "presignedUrl")
	timed(http.MethodPut, u, content, "application/pdf", http.StatusOK)
	timed(http.MethodPost, api+id+"/link", nil, "application/json", http.StatusOK)
	timed(http.MethodGet, api+id+"/link", nil, "", http.StatusOK)
	timed(http.MethodGet, e.url+pagePrefix+id, nil, "", http.StatusOK)
	timed(http.MethodGet, e.url+adminAPI+"/applications/"+id, nil, "", http.StatusOK)
	old := id
	if len(e.seeded) > 0 {
		old = e.seeded[(i*7919)%len(e.seeded)]
	}
	timed(http.MethodGet, e.url+adminAPI+"/applications/"+old, nil, "", http.StatusOK)
	return out
}
