package accounts_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	sandbox "github.com/payportal/portal/internal/sandbox/accounts"
	"github.com/payportal/portal/internal/sandbox/kit"
)

const delay = 2 * time.Minute

// completeDetails is every required detail, with the test TIN and names
// given.
func completeDetails(tin, dba string) map[string]any {
	d := detailsWithoutBanking()
	d["legalEntity"].(map[string]any)["tin"] = tin
	d["business"].(map[string]any)["dba"] = dba
	d["banking"] = map[string]any{"depositAccount": "000123456789", "depositRouting": "011401533"}
	return d
}

// accepted starts an application with details, opens its link and
// accepts the terms, as the merchant would; it returns the id and the
// path of the merchant pages.
func (s *testSandbox) accepted(t *testing.T, details map[string]any) (string, string) {
	t.Helper()
	id := s.start(t, details)
	path := strings.TrimPrefix(s.link(t, id), s.url)
	if status, _, _ := s.page(t, http.MethodGet, path, nil, nil); status != http.StatusOK {
		t.Fatalf("open link: %d", status)
	}
	if status, loc, _ := s.page(t, http.MethodPost, path+"/terms", url.Values{"accept": {"yes"}}, nil); status != http.StatusSeeOther || loc != path+"/done" {
		t.Fatalf("accept: %d %s", status, loc)
	}
	return id, path
}

func (s *testSandbox) status(t *testing.T, id string) sandbox.Status {
	t.Helper()
	a, ok := s.Application(id)
	if !ok {
		t.Fatalf("no application %s", id)
	}
	return a.Status
}

func TestUnderwritingTestData(t *testing.T) {
	tests := []struct {
		name, tin, dba string
		want           sandbox.Status
	}{
		{"approved by default", "123456789", "Corner Coffee", sandbox.StatusBoarded},
		{"declined by TIN", "222222222", "Corner Coffee", sandbox.StatusDeclined},
		{"declined by TIN with a dash", "22-2222222", "Corner Coffee", sandbox.StatusDeclined},
		{"declined by name", "123456789", "Please Decline Me", sandbox.StatusDeclined},
		{"document by TIN", "333333333", "Corner Coffee", sandbox.StatusProcessingPending},
		{"detail by name", "123456789", "Cafe Needs Detail", sandbox.StatusProcessingPending},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSandbox(t, func(o *sandbox.Options) { o.UnderwritingDelay = delay })
			id, _ := s.accepted(t, completeDetails(tt.tin, tt.dba))
			a, _ := s.Application(id)
			if a.Underwriting == nil || a.Underwriting.Outcome != tt.want || !a.Underwriting.Due.Equal(t0.Add(delay)) {
				t.Fatalf("planned decision = %+v, want %s at t0+%v", a.Underwriting, tt.want, delay)
			}
			s.clock.Advance(delay - time.Second)
			if st := s.status(t, id); st != sandbox.StatusProcessing {
				t.Fatalf("before the delay: %s, want processing", st)
			}
			s.clock.Advance(time.Second)
			if st := s.status(t, id); st != tt.want {
				t.Fatalf("after the delay: %s, want %s", st, tt.want)
			}
			a, _ = s.Application(id)
			if last := a.History[len(a.History)-1]; last.By != "underwriting" {
				t.Errorf("last change by %q, want underwriting", last.By)
			}
			if (tt.want == sandbox.StatusProcessingPending) != (a.Pending != nil) {
				t.Errorf("pending request = %+v for %s", a.Pending, tt.want)
			}
		})
	}
}

func TestUnderwritingManualReviewAndOff(t *testing.T) {
	s := newSandbox(t, func(o *sandbox.Options) { o.UnderwritingDelay = delay })
	id, _ := s.accepted(t, completeDetails("555555555", "Corner Coffee"))
	s.clock.Advance(48 * time.Hour)
	if st := s.status(t, id); st != sandbox.StatusProcessing {
		t.Errorf("manual review: %s after two days, want processing", st)
	}
	off := newSandbox(t, nil) // the helper turns underwriting off
	id, _ = off.accepted(t, completeDetails("123456789", "Corner Coffee"))
	off.clock.Advance(48 * time.Hour)
	if st := off.status(t, id); st != sandbox.StatusProcessing {
		t.Errorf("underwriting off: %s, want processing", st)
	}
}

// TestPendingDocumentResumesOnUpload: the back office asks for a voided
// check; the partner uploads one through the API; the review resumes and
// boards the merchant after the delay.
func TestPendingDocumentResumesOnUpload(t *testing.T) {
	s := newSandbox(t, func(o *sandbox.Options) { o.UnderwritingDelay = delay })
	id, path := s.accepted(t, completeDetails("333333333", "Corner Coffee"))
	s.clock.Advance(delay)
	a, _ := s.Application(id)
	if a.Status != sandbox.StatusProcessingPending || a.Pending.Kind != "document" || a.Pending.FileType != "voidedCheck" {
		t.Fatalf("after the delay: %s %+v", a.Status, a.Pending)
	}
	if _, _, body := s.page(t, http.MethodGet, path+"/done", nil, nil); !strings.Contains(body, "voided check") {
		t.Errorf("the merchant's page does not show the request:\n%s", body)
	}
	s.upload(t, id, "bankStatement", "stmt")
	if st := s.status(t, id); st != sandbox.StatusProcessingPending {
		t.Errorf("after another document: %s, want processingPending", st)
	}
	s.upload(t, id, "voidedCheck", "check")
	if st := s.status(t, id); st != sandbox.StatusProcessing {
		t.Fatalf("after the voided check: %s, want processing", st)
	}
	s.clock.Advance(delay)
	if st := s.status(t, id); st != sandbox.StatusBoarded {
		t.Errorf("after the delay: %s, want boarded", st)
	}
}

// TestPendingDetailAnsweredByMerchant: the back office asks the merchant
// to confirm the business phone; the merchant corrects it on the pages and
// sends it; the review resumes.
func TestPendingDetailAnsweredByMerchant(t *testing.T) {
	s := newSandbox(t, func(o *sandbox.Options) { o.UnderwritingDelay = delay })
	id, path := s.accepted(t, completeDetails("444444444", "Corner Coffee"))
	s.clock.Advance(delay)
	_, _, body := s.page(t, http.MethodGet, path+"/done", nil, nil)
	if !strings.Contains(body, "phone number") || !strings.Contains(body, `id="answer-request"`) {
		t.Fatalf("done page lacks the request or the way to answer it:\n%s", body)
	}
	if status, loc, _ := s.page(t, http.MethodPost, path+"/edit/business", businessForm(map[string]string{"business.phone": "(503) 555-0142"}), nil); status != http.StatusSeeOther {
		t.Fatalf("edit while pending: %d %s", status, loc)
	}
	if status, loc, _ := s.page(t, http.MethodPost, path, url.Values{}, nil); status != http.StatusSeeOther || loc != path+"/done" {
		t.Fatalf("send the details: %d %s", status, loc)
	}
	if st := s.status(t, id); st != sandbox.StatusProcessing {
		t.Fatalf("after answering: %s, want processing", st)
	}
	s.clock.Advance(delay)
	if st := s.status(t, id); st != sandbox.StatusBoarded {
		t.Errorf("after the delay: %s, want boarded", st)
	}
	if status, loc, _ := s.page(t, http.MethodGet, path+"/edit/business", nil, nil); status != http.StatusSeeOther || loc != path+"/done" {
		t.Errorf("edit after boarding: %d %s, want a redirect to done", status, loc)
	}
}

// TestAdminMoveCancelsPlannedDecision: moving by hand wins over the
// automatic decision, and only moves valid from the state are allowed.
func TestAdminMoveCancelsPlannedDecision(t *testing.T) {
	s := newSandbox(t, func(o *sandbox.Options) { o.UnderwritingDelay = delay })
	id, _ := s.accepted(t, completeDetails("222222222", "Corner Coffee"))
	if err := s.SetStatusWithMessage(id, sandbox.StatusProcessingPending, "Send the lease of the shop."); err != nil {
		t.Fatal(err)
	}
	s.clock.Advance(delay)
	a, _ := s.Application(id)
	if a.Status != sandbox.StatusProcessingPending || a.Underwriting != nil || a.Pending.Message != "Send the lease of the shop." {
		t.Fatalf("after the move by hand: %s %+v %+v", a.Status, a.Underwriting, a.Pending)
	}
	if err := s.Board(id); err != nil {
		t.Fatal(err)
	}
	if err := s.Decline(id); err == nil {
		t.Error("declining a boarded application was allowed")
	}
	if got := sandbox.AdminMoves(sandbox.StatusBoarded); len(got) != 1 || got[0] != sandbox.StatusInstalled {
		t.Errorf("moves from boarded = %v", got)
	}
}

// TestBoardingAnnouncedOnce: OnBoarded is called once per application,
// whoever boards it.
func TestBoardingAnnouncedOnce(t *testing.T) {
	got := make(chan string, 4)
	s := newSandbox(t, func(o *sandbox.Options) {
		o.UnderwritingDelay = delay
		o.OnBoarded = func(_ context.Context, m kit.Merchant) { got <- m.ApplicationID + " " + m.Name }
	})
	id, _ := s.accepted(t, completeDetails("123456789", "Corner Coffee"))
	s.clock.Advance(delay)
	if err := s.SetStatus(id, sandbox.StatusInstalled); err != nil {
		t.Fatal(err)
	}
	if err := s.SetStatus(id, sandbox.StatusActive); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || <-got != id+" Corner Coffee" {
		t.Errorf("OnBoarded calls: %d, want 1 naming the merchant", len(got)+1)
	}
}

// upload posts file metadata and uploads content through the presigned URL.
func (s *testSandbox) upload(t *testing.T, id, fileType, content string) {
	t.Helper()
	status, out := s.call(t, http.MethodPost, "/v2/application/"+id+"/file", token, map[string]any{
		"fileType": fileType, "name": fileType + ".txt", "contentLength": strconv.Itoa(len(content)), "contentType": "text/plain"})
	if status != http.StatusCreated {
		t.Fatalf("file metadata: %d %v", status, out)
	}
	req, _ := http.NewRequest(http.MethodPut, out["presignedUrl"].(string), strings.NewReader(content))
	req.Header.Set("Content-Type", "text/plain")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("upload: %d", resp.StatusCode)
	}
}
