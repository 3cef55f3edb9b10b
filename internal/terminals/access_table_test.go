package terminals_test

import (
	"strings"
	"testing"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/terminals"
)

// kindWords name the kinds of refusal the table expects.
var kindWords = map[apperr.Kind]string{apperr.KindForbidden: "forbidden", apperr.KindConflict: "conflict"}

// Who may launch what on a merchant's terminals, one row per decision: nothing on a
// suspended merchant; the reseller's installers save cards and run test amounts (at
// most 1.00) on test locations only; a merchant user needs the right to use the
// terminals, and for a return, a void or a tip the right that moves that money.
func TestWhoMayLaunchWhat(t *testing.T) {
	t.Parallel()
	live, test := terminals.Location{ID: "LIVE"}, terminals.Location{ID: "TEST", TestMode: true}
	merchant := &terminals.Merchant{Name: "Blue Fern"}
	suspended := &terminals.Merchant{Name: "Blue Fern", Suspended: true}
	staff := &terminals.Access{Merchant: merchant, Staff: true}
	user := func(rights ...string) *terminals.Access {
		a := &terminals.Access{Merchant: merchant}
		for _, r := range rights {
			switch r {
			case "use":
				a.UseTerminals = true
			case "refund":
				a.Refund = true
			case "void":
				a.Void = true
			case "adjust":
				a.Adjust = true
			}
		}
		return a
	}
	all := user("use", "refund", "void", "adjust")
	for _, tt := range []struct {
		name   string
		access *terminals.Access
		kind   terminals.Kind
		amount int64
		loc    terminals.Location
		want   string // "" allowed, else the refusal's kind and part of its words
	}{
		{"suspended, a merchant user", &terminals.Access{Merchant: suspended, UseTerminals: true}, terminals.KindSale, 500, live, "conflict: suspended"},
		{"suspended, an installer", &terminals.Access{Merchant: suspended, Staff: true}, terminals.KindSaveCard, 0, test, "conflict: suspended"},
		{"installer saves a card", staff, terminals.KindSaveCard, 0, live, ""},
		{"installer runs a test amount", staff, terminals.KindSale, 100, test, ""},
		{"installer runs more than a test amount", staff, terminals.KindSale, 101, test, "forbidden: test amounts only"},
		{"installer runs a sale on a live location", staff, terminals.KindSale, 50, live, "forbidden: only on locations in test mode"},
		{"installer runs a return", staff, terminals.KindReturn, 50, test, "forbidden: the merchant's own staff run"},
		{"installer runs a sale with a saved card", staff, terminals.KindTokenSale, 50, test, "forbidden: the merchant's own staff run"},
		{"installer adds a tip", staff, terminals.KindTip, 50, test, "forbidden: the merchant's own staff run"},
		{"user without the right to use terminals", user("refund", "void", "adjust"), terminals.KindSale, 500, live, "forbidden: use this merchant's terminals"},
		{"user runs a sale", user("use"), terminals.KindSale, 500, live, ""},
		{"user saves a card", user("use"), terminals.KindSaveCard, 0, live, ""},
		{"user runs a sale with a saved card", user("use"), terminals.KindTokenSale, 500, live, ""},
		{"user runs a return without the refund right", user("use", "void", "adjust"), terminals.KindReturn, 500, live, "forbidden: refund right"},
		{"user runs a return", user("use", "refund"), terminals.KindReturn, 500, live, ""},
		{"user voids without the void right", user("use", "refund", "adjust"), terminals.KindVoid, 500, live, "forbidden: void right"},
		{"user voids", user("use", "void"), terminals.KindVoid, 500, live, ""},
		{"user adds a tip without the adjust right", user("use", "refund", "void"), terminals.KindTip, 500, live, "forbidden: capture and adjust right"},
		{"user adds a tip", user("use", "adjust"), terminals.KindTip, 500, live, ""},
		{"user with every right runs a large sale on a test location", all, terminals.KindSale, 1_000_000, test, ""},
	} {
		err := terminals.MayLaunch(tt.access, tt.kind, tt.amount, tt.loc)
		got := ""
		if err != nil {
			got = kindWords[apperr.KindOf(err)] + ": " + err.Error()
		}
		wantKind, wantWords, _ := strings.Cut(tt.want, ": ")
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: refused (%s)", tt.name, got)
		case tt.want != "" && (err == nil || !strings.HasPrefix(got, wantKind+": ") || !strings.Contains(got, wantWords)):
			t.Errorf("%s: %q, want %s refusing with %q", tt.name, got, wantKind, wantWords)
		}
	}
}
