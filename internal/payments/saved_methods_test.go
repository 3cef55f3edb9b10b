package payments_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/payments"
)

// savedMethodEnv is a customer of the merchant with a card and a bank account on file.
type savedMethodEnv struct {
	*svcEnv
	customer   *payments.Customer
	card, bank *payments.SavedMethod
}

func newSavedMethodEnv(t *testing.T) *savedMethodEnv {
	t.Helper()
	e := &savedMethodEnv{svcEnv: newSvcEnv(t, svcOptions{})}
	ctx := context.Background()
	c, err := e.svc.CreateCustomer(ctx, e.user, e.merchant.ID, &payments.CustomerForm{Name: "Sam Saver", Email: "sam@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	e.customer = c
	for _, f := range []*payments.SaveMethodForm{e.saveCardForm(), e.saveBankForm()} {
		if res, err := e.svc.SaveMethod(ctx, e.user, e.merchant.ID, c.ID, f); err != nil || res.Transaction.Status != payments.StatusApproved {
			t.Fatalf("save a %s: %v %+v", f.Method, err, res)
		}
	}
	page, err := e.svc.CustomerView(ctx, e.user, e.merchant.ID, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	for i := range page.Methods {
		if page.Methods[i].IsBank() {
			e.bank = &page.Methods[i]
		} else {
			e.card = &page.Methods[i]
		}
	}
	if e.card == nil || e.bank == nil {
		t.Fatalf("saved methods: %+v", page.Methods)
	}
	return e
}

func (e *savedMethodEnv) token(purpose string) string {
	e.t.Helper()
	token, err := e.svc.MintToken(e.merchant, e.user, purpose)
	if err != nil {
		e.t.Fatal(err)
	}
	return token
}

func (e *savedMethodEnv) saveCardForm() *payments.SaveMethodForm {
	f := &payments.SaveMethodForm{FormToken: e.token(payments.PurposeSaveMethod(e.customer.ID)), Method: "card",
		Expiry: "12/" + fmt.Sprint(time.Now().Year()%100+3), BillingZIP: "94107", Consent: true, ConsentHow: "phone"}
	_ = f.CardNumber.UnmarshalParam("4111111111111111")
	_ = f.SecurityCode.UnmarshalParam("123")
	return f
}

func (e *savedMethodEnv) saveBankForm() *payments.SaveMethodForm {
	f := &payments.SaveMethodForm{FormToken: e.token(payments.PurposeSaveMethod(e.customer.ID)), Method: "bank_account",
		HolderName: "Sam Saver", RoutingNumber: "011401533", AccountType: "Checking", Consent: true, ConsentHow: "written"}
	_ = f.AccountNumber.UnmarshalParam("123456789")
	return f
}

// fieldsOf names the fields a refusal is about ("" for none, the error itself for
// anything but field errors).
func fieldsOf(err error) string {
	if err == nil {
		return ""
	}
	fields, ok := apperr.FieldsOf(err)
	if !ok {
		return err.Error()
	}
	return fmt.Sprint(slices.Sorted(maps.Keys(fields)))
}

// Saving a method: the customer's consent and how it was given are required, and the
// card or bank account must be one the processor can take; each refusal names its
// field and nothing reaches the processor.
func TestSaveMethodFormRefusesWhatCannotBeRight(t *testing.T) {
	t.Parallel()
	e := newSavedMethodEnv(t)
	for _, tt := range []struct {
		name   string
		change func(f *payments.SaveMethodForm)
		bank   bool
		fields string
	}{
		{"no consent", func(f *payments.SaveMethodForm) { f.Consent = false }, false, "[consent]"},
		{"consent given an unknown way", func(f *payments.SaveMethodForm) { f.ConsentHow = "telepathy" }, false, "[consent_how]"},
		{"no method chosen", func(f *payments.SaveMethodForm) { f.Method = "" }, false, "[method]"},
		{"card number wrong", func(f *payments.SaveMethodForm) { _ = f.CardNumber.UnmarshalParam("4111111111111112") }, false, "[card_number]"},
		{"card expired", func(f *payments.SaveMethodForm) { f.Expiry = "01/20" }, false, "[expiry]"},
		{"bank routing number wrong", func(f *payments.SaveMethodForm) { f.RoutingNumber = "011401534" }, true, "[routing_number]"},
		{"bank without holder", func(f *payments.SaveMethodForm) { f.HolderName = "" }, true, "[holder_name]"},
		{"bank without consent", func(f *payments.SaveMethodForm) { f.Consent = false }, true, "[consent]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := len(e.upstreamTransactions())
			f := e.saveCardForm()
			if tt.bank {
				f = e.saveBankForm()
			}
			tt.change(f)
			_, err := e.svc.SaveMethod(context.Background(), e.user, e.merchant.ID, e.customer.ID, f)
			if got := fieldsOf(err); got != tt.fields {
				t.Errorf("refused %s, want %s", got, tt.fields)
			}
			if after := len(e.upstreamTransactions()); after != before {
				t.Errorf("a refused form reached the processor (%d → %d)", before, after)
			}
		})
	}
}

// Paying with a saved method: the method must be on file, the amounts right, and a
// bank account is debited at once (no authorization, tip or tax) only with the
// customer's authorization; a card may be authorized with a tip and tax.
func TestPaySavedFormDecidesEachRow(t *testing.T) {
	t.Parallel()
	e := newSavedMethodEnv(t)
	type want struct {
		fields string
		kind   payments.Kind
		source payments.Source
		total  int64
	}
	for _, tt := range []struct {
		name string
		bank bool
		form payments.SavedPaymentForm
		want want
	}{
		{"no method chosen", false, payments.SavedPaymentForm{MethodID: "not-an-id", Amount: "5.00"}, want{fields: "[method_id]"}},
		{"a method no longer on file", false, payments.SavedPaymentForm{MethodID: uuid.NewString(), Amount: "5.00"}, want{fields: "[method_id]"}},
		{"amount missing", false, payments.SavedPaymentForm{}, want{fields: "[amount]"}},
		{"tip and tax not amounts", false, payments.SavedPaymentForm{Amount: "5.00", Tip: "x", Tax: "-1"}, want{fields: "[tax tip]"}},
		{"reference too short, receipt not an address", false, payments.SavedPaymentForm{Amount: "5.00", Reference: "ab", ReceiptEmail: "sam"},
			want{fields: "[receipt_email reference]"}},
		{"card sale", false, payments.SavedPaymentForm{Action: "sale", Amount: "5.01"}, want{kind: payments.KindSale, source: payments.SourceCard, total: 501}},
		{"card authorization with tip and tax", false, payments.SavedPaymentForm{Action: "authorization", Amount: "5.02", Tip: "1.00", Tax: "0.40"},
			want{kind: payments.KindAuthorization, source: payments.SourceCard, total: 602}},
		{"bank authorization", true, payments.SavedPaymentForm{Action: "authorization", Amount: "5.03", AuthorizedHow: "phone", Authorized: true},
			want{fields: "[action]"}},
		{"bank tip", true, payments.SavedPaymentForm{Amount: "5.04", Tip: "1.00", AuthorizedHow: "phone", Authorized: true}, want{fields: "[action]"}},
		{"bank tax", true, payments.SavedPaymentForm{Amount: "5.05", Tax: "1.00", AuthorizedHow: "phone", Authorized: true}, want{fields: "[action]"}},
		{"bank debit not authorized", true, payments.SavedPaymentForm{Amount: "5.06", AuthorizedHow: "smoke signals"},
			want{fields: "[authorized authorized_how]"}},
		{"bank debit", true, payments.SavedPaymentForm{Action: "sale", Amount: "5.07", AuthorizedHow: "phone", Authorized: true},
			want{kind: payments.KindSale, source: payments.SourceACH, total: 507}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.form
			f.FormToken = e.token(payments.PurposeSaved)
			if f.MethodID == "" {
				f.MethodID = e.card.ID.String()
				if tt.bank {
					f.MethodID = e.bank.ID.String()
				}
			}
			before := len(e.upstreamTransactions())
			res, err := e.svc.PaySaved(context.Background(), e.user, e.merchant.ID, &f)
			if got := fieldsOf(err); got != tt.want.fields {
				t.Fatalf("refused %s, want %s", got, tt.want.fields)
			}
			after := len(e.upstreamTransactions())
			if tt.want.fields != "" {
				if after != before {
					t.Errorf("a refused form reached the processor (%d → %d)", before, after)
				}
				return
			}
			got := res.Transaction
			if got.Kind != tt.want.kind || got.Source != tt.want.source || got.TotalCents() != tt.want.total || got.Status != payments.StatusApproved {
				t.Errorf("recorded %s %s of %d cents (%s), want %s %s of %d approved", got.Kind, got.Source, got.TotalCents(), got.Status,
					tt.want.kind, tt.want.source, tt.want.total)
			}
			if after != before+1 {
				t.Errorf("%d requests reached the processor, want 1", after-before)
			}
		})
	}
}
