package submission_test

import (
	"context"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/payportal/portal/internal/submission"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/apptest"
)

var seenPattern = regexp.MustCompile(`/progress\?seen=([a-z0-9]+)"`)

// pollProgress asks for the progress fragment as the page's htmx poll does.
func pollProgress(c *apptest.Client, path string) apptest.Response {
	return c.Do(http.MethodGet, path, nil, http.Header{"Hx-Request": {"true"}})
}

func TestProgressIsPolledUntilTheLinkExists(t *testing.T) {
	t.Parallel()
	s := newSubmitEnv(t, submitOptions{extra: []apptest.Option{apptest.WithoutWorkers()}})
	a := s.newApplication(t, s.rep, readyDraft("Blue Fern"), 2)
	base := "/applications/" + a.ID.String()
	if res := pollProgress(s.repC, base+"/progress"); res.Status != http.StatusNoContent {
		t.Errorf("progress of a draft never submitted: %d", res.Status)
	}
	submit(t, s.repC, a.ID)

	// Submitted, no worker yet: the page shows the steps and polls them.
	page := s.repC.Get(base)
	for _, want := range []string{`id="submission"`, `aria-live="polite"`, `<progress id="submission-bar" value="0" max="5"`,
		`hx-trigger="every 1s"`, "Upload “statement-a.pdf”", "Upload “statement-b.pdf”", "Create the merchant&#39;s link"} {
		if !strings.Contains(page.Body, want) {
			t.Errorf("the page does not show %q", want)
		}
	}
	m := seenPattern.FindStringSubmatch(page.Body)
	if m == nil {
		t.Fatal("no poll URL with a fingerprint")
	}
	// Nothing changed: 204, htmx leaves the page alone.
	if res := pollProgress(s.repC, base+"/progress?seen="+m[1]); res.Status != http.StatusNoContent {
		t.Errorf("unchanged progress: %d", res.Status)
	}
	if res := pollProgress(s.repC, base+"/progress?seen=stale"); res.Status != http.StatusOK || !strings.Contains(res.Body, `hx-swap-oob="innerHTML"`) {
		t.Errorf("changed progress: %d\n%s", res.Status, res.Body)
	}

	// The workers start and finish the push; the next poll brings the link,
	// stops polling and tells the page to refresh its checklist and history.
	if err := s.env.App.Jobs.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.env.App.Jobs.StopAndCancel(context.Background()) })
	a = s.waitForStatus(t, a.ID, pushDeadline, models.StatusLinked)
	res := pollProgress(s.repC, base+"/progress?seen="+m[1])
	if res.Status != http.StatusOK || strings.Contains(res.Body, "every 1s") || !strings.Contains(res.Body, `data-copy-target="handoff-link"`) {
		t.Errorf("finished progress: %d\n%s", res.Status, res.Body)
	}
	// The link shown is the processor's page of the application just linked.
	if !a.Locked() || a.UpstreamApplicationID == nil || !strings.Contains(res.Body, `/app/`+*a.UpstreamApplicationID+`"`) {
		t.Errorf("the finished progress does not show the link of upstream application %v:\n%s", a.UpstreamApplicationID, res.Body)
	}
	if res.Header.Get("HX-Trigger") != "application-changed" {
		t.Errorf("HX-Trigger = %q", res.Header.Get("HX-Trigger"))
	}
	if !strings.Contains(res.Body, `<progress id="submission-bar" value="5" max="5"`) {
		t.Error("the bar is not full")
	}
}

func TestReconcilerRequeuesAPushWithoutAJob(t *testing.T) {
	t.Parallel()
	s := newSubmitEnv(t, submitOptions{extra: []apptest.Option{apptest.WithoutWorkers()}})
	a := s.newApplication(t, s.rep, readyDraft("Blue Fern"), 1)
	submit(t, s.repC, a.ID)
	ctx := context.Background()
	r := submission.NewReconcileWorker(s.env.App.Store, s.env.App.Jobs, slog.New(slog.DiscardHandler))

	// The job is there: nothing to do.
	if n, err := r.Reconcile(ctx); err != nil || n != 0 {
		t.Fatalf("with the job in place: %d, %v", n, err)
	}
	// The job is lost (an operator removed it, a restore lost it).
	if _, err := s.env.DB.Pool.Exec(ctx, `DELETE FROM river_job WHERE kind = 'application_push'`); err != nil {
		t.Fatal(err)
	}
	if n, err := r.Reconcile(ctx); err != nil || n != 1 {
		t.Fatalf("after losing the job: %d, %v", n, err)
	}
	if n, err := r.Reconcile(ctx); err != nil || n != 0 {
		t.Fatalf("again: %d, %v (a second job for the same submission)", n, err)
	}
	if err := s.env.App.Jobs.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.env.App.Jobs.StopAndCancel(context.Background()) })
	a = s.waitForStatus(t, a.ID, pushDeadline, models.StatusLinked)
	if s.sb.StartedCount() != 1 {
		t.Errorf("started %d upstream applications", s.sb.StartedCount())
	}
	s.assertDocumentsArrived(t, a)
}
