package accounts_test

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	sandbox "github.com/payportal/portal/internal/sandbox/accounts"
)

// page fetches a merchant page without following redirects.
func (s *testSandbox) page(t *testing.T, method, path string, form url.Values, header http.Header) (int, string, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequest(method, s.url+path, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range header {
		req.Header[k] = v
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Location"), string(raw)
}

func TestLinkPagesBeforeLinkAreNotFound(t *testing.T) {
	s := newSandbox(t, nil)
	id := s.start(t, nil)
	if status, _, _ := s.page(t, http.MethodGet, "/app/"+id, nil, nil); status != http.StatusNotFound {
		t.Errorf("page before link: %d, want 404", status)
	}
	if status, _, _ := s.page(t, http.MethodGet, "/app/unknown", nil, nil); status != http.StatusNotFound {
		t.Errorf("unknown page: %d, want 404", status)
	}
}

func TestMerchantFlowWithoutBrowser(t *testing.T) {
	s := newSandbox(t, nil)
	id := s.start(t, detailsWithoutBanking())
	link := s.link(t, id)
	path := strings.TrimPrefix(link, s.url)

	status, _, body := s.page(t, http.MethodGet, path, nil, nil)
	if status != http.StatusOK || !strings.Contains(body, "Corner Coffee") || !strings.Contains(body, `name="banking.depositRouting"`) {
		t.Fatalf("details page: %d\n%s", status, body)
	}
	if strings.Contains(body, "123456789") {
		t.Error("details page shows a full SSN or TIN")
	}
	if a, _ := s.Application(id); a.Status != sandbox.StatusInProgress {
		t.Errorf("status after opening = %s, want inProgress", a.Status)
	}
	if status, loc, _ := s.page(t, http.MethodGet, path+"/terms", nil, nil); status != http.StatusSeeOther || loc != path {
		t.Errorf("terms before details: %d %s, want redirect to details", status, loc)
	}

	bad := url.Values{"banking.depositAccount": {"12"}, "banking.depositRouting": {"123456789"}}
	status, _, body = s.page(t, http.MethodPost, path, bad, nil)
	if status != http.StatusUnprocessableEntity || !strings.Contains(body, "ABA checksum") || !strings.Contains(body, "3 to 17 digits") || !strings.Contains(body, `value="123456789"`) {
		t.Errorf("bad bank details: %d\n%s", status, body)
	}
	if status, _, _ := s.page(t, http.MethodPost, path, bad, http.Header{"Sec-Fetch-Site": {"cross-site"}}); status != http.StatusForbidden {
		t.Errorf("cross-site post: %d, want 403", status)
	}

	good := url.Values{"banking.depositAccount": {"000123456789"}, "banking.depositRouting": {"011401533"}}
	if status, loc, _ := s.page(t, http.MethodPost, path, good, nil); status != http.StatusSeeOther || loc != path+"/terms" {
		t.Fatalf("good bank details: %d %s, want redirect to terms", status, loc)
	}
	if status, _, body := s.page(t, http.MethodPost, path+"/terms", url.Values{}, nil); status != http.StatusUnprocessableEntity || !strings.Contains(body, "accept the terms") {
		t.Errorf("terms not ticked: %d", status)
	}
	if status, loc, _ := s.page(t, http.MethodPost, path+"/terms", url.Values{"accept": {"yes"}}, nil); status != http.StatusSeeOther || loc != path+"/done" {
		t.Fatalf("accept: %d %s", status, loc)
	}
	if a, _ := s.Application(id); a.Status != sandbox.StatusProcessing {
		t.Errorf("status after accepting = %s, want processing", a.Status)
	}
	if status, loc, _ := s.page(t, http.MethodGet, path, nil, nil); status != http.StatusSeeOther || loc != path+"/done" {
		t.Errorf("details after submitting: %d %s, want redirect to done", status, loc)
	}
	if err := s.Board(id); err != nil {
		t.Errorf("board after processing: %v", err)
	}
	if _, _, body := s.page(t, http.MethodGet, path+"/done", nil, nil); !strings.Contains(body, "boarded") {
		t.Errorf("done page does not show boarded:\n%s", body)
	}
}

func TestEmptyApplicationAsksForEverything(t *testing.T) {
	s := newSandbox(t, nil)
	id := s.start(t, nil)
	path := strings.TrimPrefix(s.link(t, id), s.url)
	_, _, body := s.page(t, http.MethodGet, path, nil, nil)
	for _, name := range []string{"business.dba", "business.address.postalCode", "legalEntity.type", "owners[0].ssn", "owners[0].dob", "banking.depositRouting"} {
		if !strings.Contains(body, `name="`+name+`"`) {
			t.Errorf("page lacks an input for %s", name)
		}
	}
	if strings.Contains(body, `name="contact.email"`) {
		t.Error("contact is optional and should not be asked")
	}
}
