package webhooks_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/webhooks"
)

func TestPublicAddresses(t *testing.T) {
	for addr, public := range map[string]bool{
		"93.184.216.34": true, "8.8.8.8": true, "2606:4700::1111": true, "2a00:1450:4001:82b::200e": true,
		"127.0.0.1": false, "127.8.9.10": false, "10.1.2.3": false, "172.16.0.1": false, "172.31.255.255": false,
		"192.168.1.1": false, "169.254.169.254": false, "0.0.0.0": false, "0.1.2.3": false, "100.64.0.1": false,
		"100.127.255.254": false, "192.0.0.8": false, "198.18.0.1": false, "240.0.0.1": false, "255.255.255.255": false,
		"224.0.0.1": false, "::1": false, "::": false, "fc00::1": false, "fd12:3456::1": false, "fe80::1": false,
		"ff02::1": false, "::ffff:127.0.0.1": false, "::ffff:10.0.0.1": false, "::ffff:169.254.169.254": false,
		"::ffff:8.8.8.8": true, "64:ff9b::a00:1": false, "2002:a00:1::": false, "2001:db8::1": false, "::10.0.0.1": false,
	} {
		if got := webhooks.Public(netip.MustParseAddr(addr)); got != public {
			t.Errorf("Public(%s) = %v, want %v", addr, got, public)
		}
	}
}

func TestCheckURL(t *testing.T) {
	for raw, ok := range map[string]bool{
		"https://hooks.example.com/payportal":                    true,
		" https://hooks.example.com/a?b=c ":                      true,
		"https://93.184.216.34/hook":                             true,
		"https://[2606:4700::1111]/hook":                         true,
		"http://hooks.example.com/payportal":                     false,
		"ftp://hooks.example.com/":                               false,
		"https://user:pw@hooks.example.com/":                     false,
		"https://hooks.example.com/#frag":                        false,
		"https://127.0.0.1/hook":                                 false,
		"https://[::1]/hook":                                     false,
		"https://[::ffff:10.0.0.1]/hook":                         false,
		"https://169.254.169.254/latest/meta-data/":              false,
		"https://localhost/hook":                                 false,
		"https://api.localhost/hook":                             false,
		"https://intranet/hook":                                  false,
		"https://db.internal/hook":                               false,
		"hooks.example.com/payportal":                            false,
		"":                                                       false,
		"https://hooks.example.com/" + strings.Repeat("a", 2048): false,
	} {
		_, msg := webhooks.CheckURL(raw, false)
		if (msg == "") != ok {
			t.Errorf("CheckURL(%.60q) refused = %q, want accepted %v", raw, msg, ok)
		}
	}
	if got, msg := webhooks.CheckURL("http://127.0.0.1:8080/hook", true); msg != "" || got != "http://127.0.0.1:8080/hook" {
		t.Errorf("with private addresses allowed: %q %q", got, msg)
	}
}

// The address is checked when connecting, on the resolved address: a name that resolves
// to the loopback (as a rebinding name would) is refused like the address itself, and
// nothing reaches the receiver.
func TestSenderRefusesPrivateAddressesWhenConnecting(t *testing.T) {
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { hits++ }))
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":"):]
	s := webhooks.NewSender(webhooks.SenderOptions{Timeout: 2 * time.Second})
	secret := "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwMfKQ9r8GKYo="
	for _, address := range []string{srv.URL, "http://localhost" + port + "/hook", "http://[::ffff:127.0.0.1]" + port + "/"} {
		a := s.Send(context.Background(), address, uuid.New(), time.Now(), []byte("{}"), []string{secret})
		if a.Accepted || a.Code != 0 || !strings.Contains(a.Problem, "private") {
			t.Errorf("%s: %+v", address, a)
		}
	}
	if hits != 0 {
		t.Fatalf("the receiver was reached %d times", hits)
	}
	allowed := webhooks.NewSender(webhooks.SenderOptions{AllowPrivate: true, Timeout: 2 * time.Second})
	if a := allowed.Send(context.Background(), srv.URL, uuid.New(), time.Now(), []byte("{}"), []string{secret}); !a.Accepted || hits != 1 {
		t.Fatalf("with private addresses allowed: %+v, %d hits", a, hits)
	}
}

// Redirects are answers, not followed; a receiver that does not answer in time is
// given up on; neither answer's body is kept.
func TestSenderFollowsNoRedirectAndGivesUp(t *testing.T) {
	redirected := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/moved":
			http.Redirect(w, r, "/target", http.StatusTemporaryRedirect)
		case "/target":
			redirected = true
		case "/slow":
			_, _ = io.ReadAll(r.Body) // then the server notices the sender hanging up
			<-r.Context().Done()
		}
	}))
	defer srv.Close()
	s := webhooks.NewSender(webhooks.SenderOptions{AllowPrivate: true, Timeout: 300 * time.Millisecond})
	secret := "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwMfKQ9r8GKYo="
	a := s.Send(context.Background(), srv.URL+"/moved", uuid.New(), time.Now(), []byte("{}"), []string{secret})
	if a.Accepted || a.Code != http.StatusTemporaryRedirect || redirected || !strings.Contains(a.Problem, "redirect") {
		t.Errorf("redirect: %+v, followed %v", a, redirected)
	}
	a = s.Send(context.Background(), srv.URL+"/slow", uuid.New(), time.Now(), []byte("{}"), []string{secret})
	if a.Accepted || a.Code != 0 || !strings.Contains(a.Problem, "No answer within") {
		t.Errorf("slow receiver: %+v", a)
	}
}
