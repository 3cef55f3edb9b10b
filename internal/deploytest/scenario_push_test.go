package deploytest_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil"
)

// submissions is how many applications are submitted through the balancer.
const submissions = 50

// runningOn finds the replica running the most jobs of kind, and how many.
func (tp *topology) runningOn(t testing.TB, kind string) (*replica, int) {
	t.Helper()
	var worker string
	var n int
	err := tp.db.QueryRow(context.Background(), `SELECT attempted_by[array_length(attempted_by, 1)], count(*) FROM river_job
		WHERE kind = $1 AND state = 'running' GROUP BY 1 ORDER BY 2 DESC LIMIT 1`, kind).Scan(&worker, &n)
	if err != nil {
		return nil, 0
	}
	return tp.replicaOf(worker), n
}

// kill ends a replica's process with SIGKILL and starts its next one; the
// caller waits for it with waitServing when it needs it.
func (tp *topology) kill(t *testing.T, r *replica) time.Time {
	t.Helper()
	r.proc.Kill(t)
	at := time.Now()
	tp.start(r)
	return at
}

// pushesOnceDespiteAKill: 50 submissions through the balancer are pushed by
// every replica; one is killed with SIGKILL while pushing, and the others
// finish its pushes: each application is started upstream once, with its
// document byte for byte.
func (w *work) pushesOnceDespiteAKill(t *testing.T) {
	tp := w.tp
	c := newClient(tp.lb.url, "127.0.0.5")
	c.signIn(t, w.rep.Email, w.password)
	c.get("/")
	var mu sync.Mutex
	servers := map[string]int{}
	var wg sync.WaitGroup
	next := make(chan uuid.UUID)
	for range 8 {
		wg.Go(func() {
			for id := range next {
				res := c.postForm("/applications/"+id.String()+"/submit", nil)
				mu.Lock()
				servers[res.Server]++
				mu.Unlock()
				if res.Status != http.StatusSeeOther {
					t.Errorf("submit %s: %d %v", id, res.Status, res.Err)
				}
			}
		})
	}
	for _, id := range w.ready {
		next <- id
	}
	close(next)
	wg.Wait()
	t.Logf("submissions answered per replica: %v", servers)

	var victim *replica
	inFlight := 0
	testutil.Eventually(t, 60*time.Second, "a replica to be pushing documents", func() (bool, string) {
		victim, inFlight = tp.runningOn(t, "application_push")
		uploading := tp.count(t, "SELECT count(*) FROM documents WHERE upstream_status = 'uploading'")
		return victim != nil && uploading > 0, fmt.Sprintf("%d uploading", uploading)
	})
	killed := tp.kill(t, victim)
	t.Logf("killed %s with %d pushes running", victim.name, inFlight)
	testutil.Eventually(t, 90*time.Second, "every application to be linked", func() (bool, string) {
		n := tp.count(t, "SELECT count(*) FROM applications WHERE id = ANY($1) AND status = 'linked'", w.ready)
		return n == len(w.ready), fmt.Sprintf("%d of %d linked", n, len(w.ready))
	})
	w.figures = append(w.figures, fmt.Sprintf("pushes of a killed replica finished elsewhere %.1f s after the kill", time.Since(killed).Seconds()))
	t.Logf("%s", w.figures[len(w.figures)-1])
	w.assertPushedOnce(t)
	tp.waitServing(t, victim)
}

// assertPushedOnce checks the sandbox holds one application per submission,
// each holding the file its document was recorded as, uploaded byte for byte.
// A document whose upload the kill cut short is uploaded again as a new file
// (the processor's files cannot be resumed): those are counted, not refused.
func (w *work) assertPushedOnce(t *testing.T) {
	t.Helper()
	var list struct {
		Applications []struct {
			ID       string `json:"applicationId"`
			External string `json:"externalApplicationId"`
		} `json:"applications"`
	}
	w.tp.sandboxCall(t, http.MethodGet, "/_sandbox/admin/api/accounts/applications?limit=1000", nil, &list)
	started := map[string][]string{}
	for _, a := range list.Applications {
		started[a.External] = append(started[a.External], a.ID)
	}
	again := 0
	for _, id := range w.ready {
		ups := started[id.String()]
		if len(ups) != 1 {
			t.Errorf("application %s started %d times upstream", id, len(ups))
			continue
		}
		var up struct {
			Files []struct {
				ID       string `json:"fileId"`
				SHA256   string `json:"sha256"`
				Uploaded bool   `json:"uploaded"`
			} `json:"files"`
		}
		w.tp.sandboxCall(t, http.MethodGet, "/_sandbox/admin/api/accounts/applications/"+ups[0], nil, &up)
		var docs []models.Document
		w.tp.portal.DB.Gorm.Where("application_id = ? AND deleted_at IS NULL", id).Find(&docs)
		if len(docs) != 1 || docs[0].UpstreamFileID == nil {
			t.Errorf("application %s: %d documents, recorded %v", id, len(docs), docs)
			continue
		}
		again += len(up.Files) - 1
		found := false
		for _, f := range up.Files {
			found = found || (f.ID == *docs[0].UpstreamFileID && f.Uploaded && f.SHA256 == docs[0].SHA256)
		}
		if !found {
			t.Errorf("application %s: the recorded file %s is not upstream byte for byte: %+v", id, *docs[0].UpstreamFileID, up.Files)
		}
	}
	w.figures = append(w.figures, fmt.Sprintf("%d applications started upstream once each; %d of %d documents byte-exact; %d uploads cut short by the kill were sent again as new files",
		len(w.ready), len(w.ready), len(w.ready), again))
}
