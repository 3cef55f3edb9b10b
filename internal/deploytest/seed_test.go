package deploytest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/app"
	"github.com/payportal/portal/internal/auth"
	"github.com/payportal/portal/internal/drafts"
	"github.com/payportal/portal/internal/merchants"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil"
	"github.com/payportal/portal/internal/testutil/seed"
	"github.com/payportal/portal/internal/testutil/smtpserver"
)

// pricingCode is the one pricing code the sandbox knows.
const pricingCode = "REPLICA1"

// seedPricingModel stores an active pricing model of pricingCode that asks
// for a bank statement.
func seedPricingModel(t *testing.T, a *app.App) uuid.UUID {
	t.Helper()
	m := models.PricingModel{ID: uuid.New(), Name: "Flat rate", UpstreamCode: pricingCode, FeeSummary: "2.9% + 30¢",
		RequiredDocumentTypes: []string{"bank_statement"}, Active: true, Version: 1, CreatedAt: time.Now(), UpdatedAt: time.Now()}
	if err := a.DB.Gorm.Create(&m).Error; err != nil {
		t.Fatal(err)
	}
	return m.ID
}

// seedReadyApplications stores n drafts of owner ready to submit, each with
// one bank statement (encrypted, in S3), and returns their ids.
func seedReadyApplications(t *testing.T, a *app.App, owner *models.User, pricingModel uuid.UUID, n int) []uuid.UUID {
	t.Helper()
	ctx := context.Background()
	ids := make([]uuid.UUID, n)
	for i := range ids {
		d := seed.ReadyDraft(fmt.Sprintf("Replica Cafe %d", i))
		now := time.Now()
		appl := &models.Application{ID: uuid.New(), OwnerID: owner.ID, Status: models.StatusDraft, Version: 1,
			LegalName: d.Business.LegalName, DBA: d.Business.DBA, ContactName: d.Contact.Name, ContactEmail: d.Contact.Email,
			PricingModelID: &pricingModel, CreatedAt: now, UpdatedAt: now}
		var err error
		if appl.Draft, err = a.Sealer.SealJSON(appl.ID, d); err != nil {
			t.Fatal(err)
		}
		if err := a.DB.Gorm.Create(appl).Error; err != nil {
			t.Fatal(err)
		}
		if _, err := a.Documents.Attach(ctx, owner, appl, "bank_statement", bytes.NewReader(samplePDF(t)), "statement.pdf"); err != nil {
			t.Fatal(err)
		}
		ids[i] = appl.ID
	}
	return ids
}

// boardMerchant stores a linked application of owner and boards it as the
// boarded webhook would, returning the merchant's id.
func boardMerchant(t *testing.T, a *app.App, owner *models.User, name string) uuid.UUID {
	t.Helper()
	ctx := context.Background()
	now, upID := time.Now(), uuid.NewString()
	appl := &models.Application{ID: uuid.New(), OwnerID: owner.ID, Status: models.StatusLinked, Version: 1,
		LegalName: name + " LLC", DBA: name, ContactName: "Jo", ContactEmail: "jo@" + strings.ToLower(strings.ReplaceAll(name, " ", "")) + ".example",
		UpstreamApplicationID: &upID, HandoffLink: new("https://upstream.example/app/" + upID), LinkedAt: &now,
		CreatedAt: now, UpdatedAt: now, SubmissionCount: 1}
	var err error
	if appl.Draft, err = a.Sealer.SealJSON(appl.ID, drafts.Draft{Business: drafts.Business{LegalName: appl.LegalName, DBA: name}}); err != nil {
		t.Fatal(err)
	}
	if err := a.DB.Gorm.Create(appl).Error; err != nil {
		t.Fatal(err)
	}
	if err := a.Merchants.Store().InTx(ctx, func(tx pgx.Tx) error {
		return a.Merchants.FollowStatus(ctx, tx, appl.ID, "boarded", now.Add(-time.Hour))
	}); err != nil {
		t.Fatal(err)
	}
	id, ok, err := a.Merchants.Store().IDOfApplication(ctx, appl.ID)
	if err != nil || !ok {
		t.Fatalf("no merchant after boarding: %v", err)
	}
	return id
}

// paymentsMember invites a merchant's member with permissions, accepts the
// invitation (its link read from the e-mail a replica delivered: the outbox keeps
// it sealed) and enrols them in two-step sign-in (payments need it).
func paymentsMember(t *testing.T, a *app.App, mails *smtpserver.Server, admin *models.User, merchantID uuid.UUID, email string, perms ...merchants.Permission) *models.User {
	t.Helper()
	ctx := context.Background()
	if _, err := a.Merchants.Invite(ctx, admin, merchantID, merchants.MemberInput{Email: email, Name: "Casey", Permissions: perms}); err != nil {
		t.Fatal(err)
	}
	token := ""
	testutil.Eventually(t, 60*time.Second, "the invitation e-mail to "+email, func() (bool, string) {
		for _, m := range mails.Messages() {
			if i := strings.Index(m.Text, "/invite/"); slices.Contains(m.To, email) && i >= 0 {
				token = strings.Fields(m.Text[i+len("/invite/"):])[0]
				return true, ""
			}
		}
		return false, "not delivered yet"
	})
	password := "violet-tractor-mango-1984"
	u, err := a.Auth.AcceptInvitation(ctx, token, password, password)
	if err != nil {
		t.Fatalf("accept the invitation: %v", err)
	}
	enr, err := a.Auth.BeginEnrolment(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Auth.ConfirmEnrolment(ctx, u, auth.TOTPCode(strings.ReplaceAll(enr.Secret, " ", ""), time.Now()), "127.0.0.1"); err != nil {
		t.Fatal(err)
	}
	if u, err = a.Auth.Users().ByEmail(ctx, email); err != nil {
		t.Fatal(err)
	}
	return u
}

// sandboxCall calls the standalone sandbox's admin JSON API.
func (tp *topology) sandboxCall(t testing.TB, method, path string, body, out any) {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, _ := http.NewRequestWithContext(context.Background(), method, tp.sandbox+path, r)
	req.SetBasicAuth("admin", tp.sandboxToken)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("sandbox %s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 300 {
		t.Fatalf("sandbox %s %s: %d %s", method, path, res.StatusCode, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("sandbox %s %s: %v\n%s", method, path, err, b)
		}
	}
}
