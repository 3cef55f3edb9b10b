package accounts_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

var sessionField = regexp.MustCompile(`name="session" value="([^"]+)"`)

func TestBankLinkFillsBankDetails(t *testing.T) {
	s := newSandbox(t, nil)
	id := s.start(t, detailsWithoutBanking())
	path := strings.TrimPrefix(s.link(t, id), s.url)
	_, _, body := s.page(t, http.MethodGet, path, nil, nil)
	if !strings.Contains(body, `href="`+path+`/bank-link?return=details"`) {
		t.Fatalf("details page offers no bank link:\n%s", body)
	}
	status, _, body := s.page(t, http.MethodGet, path+"/bank-link?return=details", nil, nil)
	if status != http.StatusOK || !strings.Contains(body, "First Platypus Bank") || !strings.Contains(body, "user_good") {
		t.Fatalf("institutions: %d\n%s", status, body)
	}
	if status, _, body := s.page(t, http.MethodPost, path+"/bank-link", url.Values{"return": {"details"}}, nil); status != http.StatusUnprocessableEntity || !strings.Contains(body, "Choose your bank.") {
		t.Errorf("no bank chosen: %d", status)
	}
	status, _, body = s.page(t, http.MethodPost, path+"/bank-link", url.Values{"institution": {"ins_109508"}, "return": {"details"}}, nil)
	if status != http.StatusOK || !strings.Contains(body, "Sign in to First Platypus Bank") {
		t.Fatalf("login step: %d\n%s", status, body)
	}

	login := path + "/bank-link/ins_109508"
	failures := []struct{ user, password, code, words string }{
		{"user_good", "wrong", "INVALID_CREDENTIALS", "username or password you entered is not correct"},
		{"someone", "pass_good", "INVALID_CREDENTIALS", "not correct"},
		{"user_good", "error_ITEM_LOCKED", "ITEM_LOCKED", "locked"},
		{"user_good", "error_INSTITUTION_DOWN", "INSTITUTION_DOWN", "First Platypus Bank is not available right now"},
		{"", "", "MISSING_FIELDS", "Enter your username and password."},
	}
	for _, f := range failures {
		status, _, body := s.page(t, http.MethodPost, login, url.Values{"username": {f.user}, "password": {f.password}, "return": {"details"}}, nil)
		if status != http.StatusUnprocessableEntity || !strings.Contains(body, f.code) || !strings.Contains(body, f.words) {
			t.Errorf("%s/%s: %d, want 422 with %s", f.user, f.password, status, f.code)
		}
		if f.user != "" && !strings.Contains(body, `value="`+f.user+`"`) {
			t.Errorf("%s: username not kept", f.user)
		}
	}
	// The account step needs the sign-in.
	if status, _, _ := s.page(t, http.MethodPost, login+"/account", url.Values{"account": {"chk"}, "session": {"forged"}}, nil); status != http.StatusForbidden {
		t.Errorf("account without sign-in: %d, want 403", status)
	}
	status, _, body = s.page(t, http.MethodPost, login, url.Values{"username": {"user_good"}, "password": {"pass_good"}, "return": {"details"}}, nil)
	m := sessionField.FindStringSubmatch(body)
	if status != http.StatusOK || m == nil || !strings.Contains(body, "ending 0000") {
		t.Fatalf("accounts step: %d\n%s", status, body)
	}
	session := m[1]
	status, loc, _ := s.page(t, http.MethodPost, login+"/account", url.Values{"account": {"chk"}, "session": {session}, "return": {"details"}}, nil)
	if status != http.StatusSeeOther || loc != path+"?linked=1" {
		t.Fatalf("link account: %d %s", status, loc)
	}
	a, _ := s.Application(id)
	for _, want := range []string{`"depositAccount":"1111222233330000"`, `"depositRouting":"011401533"`, `"accountType":"Checking"`} {
		if !strings.Contains(string(a.Data), want) {
			t.Errorf("data lacks %s: %s", want, a.Data)
		}
	}
	if len(a.Changes) != 1 || a.Changes[0].By != "bank link (First Platypus Bank)" {
		t.Errorf("changes = %+v", a.Changes)
	}
	_, _, body = s.page(t, http.MethodGet, loc, nil, nil)
	if !strings.Contains(body, "Your account at First Platypus Bank is linked") || strings.Contains(body, `name="banking.depositAccount"`) {
		t.Errorf("details after linking:\n%s", body)
	}
	// A session lives ten minutes by the sandbox clock.
	s.clock.Advance(10 * time.Minute)
	if status, _, _ := s.page(t, http.MethodPost, login+"/account", url.Values{"account": {"sav"}, "session": {session}}, nil); status != http.StatusForbidden {
		t.Errorf("expired session: %d, want 403", status)
	}
}
