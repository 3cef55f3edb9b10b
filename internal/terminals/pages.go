package terminals

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/payments"
)

// LaunchView is a launch's page: where it stands, what the user can do.
type LaunchView struct {
	Access *Access
	Launch *Launch
	// Original is the sale of a void or tip, or the saved card of a token
	// sale; ResendOf the unknown launch this one sent again; ResentAs the
	// launch that sent this one again.
	Original, ResendOf, ResentAs *Launch
	// Acting are the voids and tips of this launch, oldest first.
	Acting []*Launch
	// CurrentTotal is a sale's total with its latest tip.
	CurrentTotal int64
	// What the viewer may do next.
	CanTip, CanVoid, CanConfirm, CanResend, CanSaleWithCard bool
	// ResendToken is the resend form's one-time token.
	ResendToken uuid.UUID
	Now         time.Time
}

// Fingerprint identifies what the page's live part shows, so that a poll
// that finds nothing new changes nothing on the page.
func (v *LaunchView) Fingerprint() string {
	l := v.Launch
	return fmt.Sprintf("%s-%s-%t-%d", l.State, l.CloudID(), l.RecheckUntil != nil, len(l.Problem))
}

// Live reports whether the page keeps asking for news: while the launch is
// on its way, and while an unknown one is still rechecked.
func (v *LaunchView) Live() bool {
	l := v.Launch
	return l.State == StateSending || l.State == StateWaiting || (l.State == StateUnknown && l.RecheckUntil != nil)
}

// Page builds a launch's page for u.
func (s *Service) Page(ctx context.Context, u *models.User, merchantID, id uuid.UUID) (*LaunchView, error) {
	acc, err := s.access(ctx, u, merchantID)
	if err != nil {
		return nil, err
	}
	l, err := s.store.MerchantLaunch(ctx, merchantID, id)
	if err != nil {
		return nil, err
	}
	v := &LaunchView{Access: acc, Launch: l, ResendToken: uuid.New(), Now: s.clock.Now()}
	if l.OriginalID != nil {
		if v.Original, err = s.store.Launch(ctx, nil, *l.OriginalID); err != nil {
			return nil, err
		}
	}
	if l.ResendOf != nil {
		if v.ResendOf, err = s.store.Launch(ctx, nil, *l.ResendOf); err != nil {
			return nil, err
		}
	}
	if v.Acting, err = s.store.ActingOn(ctx, nil, l.ID); err != nil {
		return nil, err
	}
	if l.State == StateResent {
		v.ResentAs, _ = s.store.ResendOfLaunch(ctx, l.ID)
	}
	loc, _ := acc.Merchant.Location(l.LocationID)
	v.CurrentTotal = currentTotal(l, v.Acting)
	sale := (l.Kind == KindSale || l.Kind == KindTokenSale) && !l.Duplicate
	approved := l.State == StateApproved && l.UniqueTransID != nil
	voided := voidOf(v.Acting) != nil
	v.CanTip = approved && sale && !voided && acc.mayLaunch(KindTip, 1, loc) == nil
	v.CanVoid = approved && (sale || l.Kind == KindReturn) && !voided && acc.mayLaunch(KindVoid, 1, loc) == nil
	v.CanSaleWithCard = approved && l.Kind == KindSaveCard && acc.mayLaunch(KindTokenSale, 1, loc) == nil
	v.CanConfirm = l.State == StateUnknown && (acc.Staff || acc.UseTerminals)
	v.CanResend = l.State == StateUnknown && acc.mayLaunch(l.Kind, l.Amount(), loc) == nil
	return v, nil
}

// FormView is the launch form of one kind on one device.
type FormView struct {
	Access   *Access
	Location Location
	Device   *Device
	// Devices are the location's devices (a void may run on any of them).
	Devices []*Device
	Kind    Kind
	Request LaunchRequest
	Errors  apperr.FieldErrors
	// Problem is a refusal of the whole form (a busy device), and Busy
	// the launch that holds the device.
	Problem string
	Busy    *Launch
	// Original is the sale a tip or void acts on; CurrentTotal its total.
	Original     *Launch
	CurrentTotal int64
	// SavedCards are the cards a token sale may charge; Sales those a
	// return may be linked to.
	SavedCards []*Launch
	Sales      []*payments.Transaction
}

// TipWarnPercent is the tip share above which the form warns.
func (v *FormView) TipWarnPercent() int { return tipWarnPercent }

// Form builds the launch form of kind on a device (for a tip or void, on
// the original's). req carries the values to show again after a refusal.
func (s *Service) Form(ctx context.Context, u *models.User, merchantID uuid.UUID, req LaunchRequest) (*FormView, error) {
	acc, err := s.access(ctx, u, merchantID)
	if err != nil {
		return nil, err
	}
	kind := Kind(req.Kind)
	if !kind.Valid() {
		return nil, models.ErrNotFound
	}
	v := &FormView{Access: acc, Kind: kind, Request: req, Errors: apperr.FieldErrors{}}
	if req.FormToken == "" {
		v.Request.FormToken = uuid.New().String()
	}
	if id, ok := parseID(req.Original); ok && id != nil {
		if o, err := s.store.MerchantLaunch(ctx, merchantID, *id); err == nil {
			v.Original = o
			if kind == KindTip || (kind == KindVoid && req.Device == "") {
				v.Request.LocationID, v.Request.Device = o.LocationID, o.DeviceName
			}
			acting, err := s.store.ActingOn(ctx, nil, o.ID)
			if err != nil {
				return nil, err
			}
			v.CurrentTotal = currentTotal(o, acting)
		}
	}
	loc, ok := acc.Merchant.Location(v.Request.LocationID)
	if !ok {
		return nil, models.ErrNotFound
	}
	v.Location = Location{ID: loc.ID, Name: loc.Name, TestMode: loc.TestMode}
	all, err := s.store.Devices(ctx, merchantID)
	if err != nil {
		return nil, err
	}
	for _, d := range all {
		if d.LocationID == loc.ID && d.RemovedAt == nil {
			v.Devices = append(v.Devices, d)
			if d.DeviceName == v.Request.Device {
				v.Device = d
			}
		}
	}
	if v.Device == nil {
		return nil, models.ErrNotFound
	}
	if !acc.Offers(kind, loc.TestMode) {
		return nil, acc.mayLaunch(kind, 1, loc)
	}
	switch kind {
	case KindTokenSale:
		if v.SavedCards, err = s.store.SavedCards(ctx, merchantID); err != nil {
			return nil, err
		}
	case KindReturn:
		page, err := s.ledger.List(ctx, nil, payments.Filter{MerchantID: merchantID, Kind: payments.KindSale, Limit: 50})
		if err != nil {
			return nil, err
		}
		for _, t := range page.Transactions {
			if t.RefundableCents() > 0 {
				v.Sales = append(v.Sales, t)
			}
		}
	}
	if v.Request.Cashier == "" {
		v.Request.Cashier = truncate(u.DisplayName(), maxCashier)
	}
	return v, nil
}

// SaleLabel describes a sale a return may be linked to.
func (v *FormView) SaleLabel(t *payments.Transaction) string {
	parts := []string{payments.FormatCents(t.ApprovedCents)}
	if t.Reference != "" {
		parts = append(parts, t.Reference)
	}
	if c := t.Card.Label(); c != "" {
		parts = append(parts, c)
	}
	parts = append(parts, "left "+payments.FormatCents(t.RefundableCents()))
	return strings.Join(parts, " · ")
}
