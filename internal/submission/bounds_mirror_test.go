package submission_test

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/app"
	"github.com/payportal/portal/internal/drafts"
	"github.com/payportal/portal/internal/drafts/draftstest"
	"github.com/payportal/portal/internal/sandbox/accounts"
	"github.com/payportal/portal/internal/submission"
	upstream "github.com/payportal/portal/internal/upstream/accounts"
)

// The sandbox holds application data to the portal's table of bounds (drafts.Bounds): for
// every bounded field that is sent upstream, a value at the bound passes the portal's
// validation and the sandbox's, and one step past it fails both. So the checklist never
// lets through what the processor then refuses.
func TestSandboxMirrorsTheBounds(t *testing.T) {
	t.Parallel()
	token := "mirror-" + uuid.NewString()
	rs, err := app.StartSandbox("127.0.0.1:0", accounts.Options{
		Tokens: []string{token}, AnyPricingCode: true, UnderwritingDelay: -1, Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rs.Close(context.Background()) })
	client, err := upstream.New(upstream.Config{BaseURL: rs.BaseURL, Token: token, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	appID, err := client.StartApplication(ctx, upstream.StartRequest{ExternalApplicationID: uuid.NewString(), PricingCode: "MIRROR"})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	today := now.Format(time.DateOnly)
	checked := 0
	for _, b := range drafts.Bounds() {
		if b.SentAs == "" {
			continue
		}
		field := strings.Replace(b.Field, "*", "0", 1)
		at, past, ok := boundValues(b, now)
		if !ok {
			continue // a field with a format of its own: the format bounds it more tightly
		}
		checked++
		for _, c := range []struct {
			value string
			valid bool
		}{{at, true}, {past, false}} {
			d := draftstest.Complete(drafts.EntityLLC)
			if err := d.Set(field, c.value); err != nil {
				t.Fatal(err)
			}
			msg, refused := d.Validate(now)[field]
			if refused == c.valid {
				t.Errorf("%s = %.30q (today %s): portal refused=%v (%q), want %v", field, c.value, today, refused, msg, !c.valid)
			}
			err := client.PatchApplication(ctx, appID, submission.UpstreamData(d))
			if (err == nil) != c.valid {
				t.Errorf("%s = %.30q sent as %s: sandbox answered %v, want accepted=%v", field, c.value, b.SentAs, err, c.valid)
			}
		}
	}
	t.Logf("%d bounds checked", checked)
	if checked < 15 {
		t.Errorf("only %d bounds checked", checked)
	}
}

// boundValues returns a value at a field's bound and one just past it, for the fields whose
// bound is a length of free text, a number range or a date range.
func boundValues(b drafts.Bound, now time.Time) (at, past string, ok bool) {
	switch b.Field {
	case "owners.*.date_of_birth":
		return now.AddDate(-drafts.MaxOwnerAge, 0, 0).Format(time.DateOnly),
			now.AddDate(-drafts.MaxOwnerAge, 0, -1).Format(time.DateOnly), true
	case "business.incorporation_date":
		year := strconv.Itoa(drafts.EarliestIncorporationYear)
		return year + "-01-01", strconv.Itoa(drafts.EarliestIncorporationYear-1) + "-12-31", true
	}
	switch {
	case b.Whole:
		return strconv.FormatInt(b.Max, 10), strconv.FormatInt(b.Max+1, 10), true
	case b.Hundredths:
		write := func(n int64) string {
			return strconv.FormatInt(n/100, 10) + "." + strconv.FormatInt(n%100/10, 10) + strconv.FormatInt(n%10, 10)
		}
		return write(b.Max), write(b.Max + 1), true
	}
	for _, free := range []string{"name", "dba", "line1", "line2", "city", "goods_and_services", "title"} {
		if strings.HasSuffix(b.Field, free) {
			return strings.Repeat("é", b.MaxLength), strings.Repeat("é", b.MaxLength+1), true
		}
	}
	return "", "", false
}
