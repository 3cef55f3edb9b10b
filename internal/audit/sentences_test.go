package audit

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/payportal/portal/internal/models"
)

// actionConstants reads every Action* string constant of the package's
// source, so a constant added in any file (by any room) is found without
// anyone listing it.
func actionConstants(t *testing.T) map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	files, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, fi := range files {
		if !strings.HasSuffix(fi.Name(), ".go") || strings.HasSuffix(fi.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, fi.Name(), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		{
			for _, decl := range f.Decls {
				gd, ok := decl.(*ast.GenDecl)
				if !ok || gd.Tok != token.CONST {
					continue
				}
				for _, spec := range gd.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, name := range vs.Names {
						if !strings.HasPrefix(name.Name, "Action") || i >= len(vs.Values) {
							continue
						}
						lit, ok := vs.Values[i].(*ast.BasicLit)
						if !ok || lit.Kind != token.STRING {
							t.Errorf("%s is not a string literal: the history cannot word it", name.Name)
							continue
						}
						v, _ := strconv.Unquote(lit.Value)
						out[name.Name] = v
					}
				}
			}
		}
	}
	if len(out) < 40 {
		t.Fatalf("found only %d Action constants: the parse is wrong", len(out))
	}
	return out
}

// Every action constant has its row in the table of sentences, and every
// row is an action.
func TestEveryActionHasASentence(t *testing.T) {
	consts := actionConstants(t)
	values := map[string]bool{}
	for name, v := range consts {
		values[v] = true
		if _, ok := sentenceOf(v); !ok {
			t.Errorf("%s (%q) has no row in the table of sentences (sentences.go)", name, v)
		}
	}
	for action := range sentences {
		if !values[action] {
			t.Errorf("the table of sentences has a row for %q, which is no Action constant", action)
		}
	}
}

// sampleDetails are details as the rooms write them: everything filled, each
// kind of payment and terminal transaction, and nothing at all.
func sampleDetails() []string {
	out := []string{`{}`, `{"amount": "$12.50"}`}
	for _, what := range []string{"Sale", "ACH sale", "Authorization", "Terminal sale", ""} {
		for _, kind := range []string{"sale", "token_sale", "return", "void", "save_card", "tip", ""} {
			out = append(out, `{"section": "business", "key": "owners.x.ssn", "from_name": "Sam Rep", "to_name": "Rita Rep",
				"message": "The processor said no.", "status": "declined", "reminder": "not_opened", "number": 2,
				"batch": "b1", "row": 3, "member_name": "Casey Cashier", "permissions": ["Take payments", "Refund"],
				"area": "payments", "source": "sandbox", "location": "Front counter (LOC1)", "ok": true,
				"transaction_id": "0b8f3c2e-0000-4000-8000-000000000001", "what": "`+what+`", "of": "`+what+`",
				"amount": "$46.00", "tip": "$6.00", "card": "Visa ending 1111", "reference": "INV-7",
				"note": "after a duplicate warning", "launch_id": "0b8f3c2e-0000-4000-8000-000000000002",
				"kind": "`+kind+`", "location_id": "LOC1", "device": "Front counter", "reason": "wrong amount",
				"outcome": "card_removed", "doc_type": "voided_check", "doc_title": "Voided check",
				"display_name": "check.pdf", "replaced_display_name": "old-check.pdf"}`)
		}
	}
	return out
}

var (
	snakeCase     = regexp.MustCompile(`\b[a-z0-9]+(_[a-z0-9]+)+\b`)
	badArticle    = regexp.MustCompile(`(?i)\ba [aeio]|\ban [bcdfgjklmnpqrstvwz]`)
	repeatedWord  = regexp.MustCompile(`(?i)\b(\w+) (\w+)\b`)
	badPunctation = regexp.MustCompile(`\s[:;,.)]|\(\s|\(\)|[:;,(—]$|  |: \.|^\s|\s$`)
)

// outcomeWord is what a sentence must say for an attempt of each outcome.
var outcomeWord = map[AttemptOutcome]string{
	"": "asked the processor", OutcomeDone: "", OutcomePending: "has not come yet", OutcomeUnknown: "not known yet",
	OutcomeDeclined: "declined", OutcomeRefused: "refused", OutcomeFailed: "did not go through", OutcomeCancelled: "cancelled",
}

// Every kind of entry, in every outcome, with any details, reads as a
// sentence: never empty, never a raw code, never "a ach sale" or "a a", and
// an attempt that did not happen never reads as done.
func TestEveryKindReadsInEveryOutcome(t *testing.T) {
	for name, action := range actionConstants(t) {
		for _, details := range sampleDetails() {
			for _, outcome := range AllOutcomes() {
				e := newEntry(row{Action: action, Fields: []string{"business.tin"}, Details: models.JSON(details)})
				e.result = Result{Outcome: outcome, Reason: "The payment has already settled, so it cannot be voided."}
				text := e.text()
				where := name + " " + string(outcome) + " " + details[:min(len(details), 60)]
				for _, problem := range sentenceProblems(action, text) {
					t.Errorf("%s: %s: %q", where, problem, text)
				}
				if !e.attempt() {
					e.result = Result{}
					if plain := e.text(); plain != text {
						t.Errorf("%s: an entry done when recorded changes with the outcome: %q, %q", where, text, plain)
					}
					continue
				}
				if w := outcomeWord[outcome]; w != "" && !strings.Contains(text, w) {
					t.Errorf("%s: an attempt %s does not say %q: %q", where, outcome, w, text)
				}
				if outcome != OutcomeDone && !strings.Contains(text, "tried to") && !strings.Contains(text, "asked the processor") {
					t.Errorf("%s: an attempt %s reads as done: %q", where, outcome, text)
				}
			}
		}
	}
}

// sentenceProblems lists what is wrong with a history sentence.
func sentenceProblems(action, text string) []string {
	var out []string
	if strings.TrimSpace(text) == "" {
		return []string{"no sentence"}
	}
	if strings.Contains(text, action) && strings.Contains(action, "_") {
		out = append(out, "shows its raw code")
	}
	if m := snakeCase.FindString(text); m != "" {
		out = append(out, "shows a raw code "+m)
	}
	if m := badArticle.FindString(text); m != "" {
		out = append(out, "wrong article "+strconv.Quote(m))
	}
	for _, m := range repeatedWord.FindAllStringSubmatch(text, -1) {
		if strings.EqualFold(m[1], m[2]) {
			out = append(out, "a word twice "+strconv.Quote(m[0]))
		}
	}
	if m := badPunctation.FindString(text); m != "" {
		out = append(out, "broken punctuation "+strconv.Quote(m))
	}
	for _, s := range []string{"<nil>", "%!", "void a void", "voided a void"} {
		if strings.Contains(text, s) {
			out = append(out, "says "+strconv.Quote(s))
		}
	}
	return out
}

// The sentences the issue names, word for word.
func TestSentencesOfTheIssue(t *testing.T) {
	cases := []struct {
		action, details string
		result          Result
		want            string
	}{
		{ActionVoidRequested, `{"what": "Void", "of": "Sale", "amount": "$1,234.50", "card": "Visa ending 1111"}`,
			Result{Outcome: OutcomeRefused, Reason: "already settled"},
			"tried to void a sale of $1,234.50 on Visa ending 1111 — the processor refused: already settled"},
		{ActionVoidRequested, `{"what": "Void", "of": "Sale", "amount": "$1,234.50", "card": "Visa ending 1111"}`,
			Result{Outcome: OutcomeDone}, "voided a sale of $1,234.50 on Visa ending 1111"},
		{ActionTipRequested, `{"what": "Tip adjustment", "of": "Sale", "amount": "$46.00", "tip": "$6.00", "card": "Visa ending 1111"}`,
			Result{Outcome: OutcomeDone}, "set the tip of a sale on Visa ending 1111 to $6.00; the total is now $46.00"},
		{ActionPaymentRequested, `{"what": "ACH sale", "amount": "$80.00", "card": "Checking account ending 6789"}`,
			Result{Outcome: OutcomeDone}, "took an ACH sale of $80.00 on Checking account ending 6789"},
		{ActionPaymentRequested, `{"what": "Sale", "amount": "$80.00"}`,
			Result{Outcome: OutcomeUnknown}, "tried to take a sale of $80.00 — the outcome is not known yet: the portal is checking with the processor"},
		{ActionDocumentAdded, `{"doc_type": "voided_check", "doc_title": "Voided check", "display_name": "check.pdf"}`,
			Result{}, "added the document Voided check (check.pdf)"},
		{ActionDocumentAdded, `{"doc_type": "voided_check", "display_name": "check.pdf"}`, Result{}, "added the document check.pdf"},
	}
	for _, c := range cases {
		e := newEntry(row{Action: c.action, Details: models.JSON(c.details)})
		e.result = c.result
		if got := e.text(); got != c.want {
			t.Errorf("%s %s:\n got %q\nwant %q", c.action, c.result.Outcome, got, c.want)
		}
	}
}

func TestArticle(t *testing.T) {
	for noun, want := range map[string]string{"ACH sale": "an ACH sale", "sale": "a sale", "authorization": "an authorization",
		"PDF": "a PDF", "MCC": "an MCC", "user": "a user", "unknown entry": "an unknown entry", "": ""} {
		if got := article(noun); got != want {
			t.Errorf("article(%q) = %q, want %q", noun, got, want)
		}
	}
	if !slices.Contains(AllOutcomes(), AttemptOutcome("")) {
		t.Error("AllOutcomes leaves out the zero outcome")
	}
}
