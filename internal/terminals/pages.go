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
	if err := s.related(ctx, v); err != nil {
		return nil, err
	}
	loc, _ := acc.Merchant.Location(l.LocationID)
	v.CurrentTotal = currentTotal(l, v.Acting)
	v.offerNextSteps(loc)
	return v, nil
}

// related loads the launches a launch's page names: its original, the launch it
// sent again, the voids and tips acting on it, and the launch that sent it again.
func (s *Service) related(ctx context.Context, v *LaunchView) error {
	l := v.Launch
	var err error
	if v.Original, err = s.optionalLaunch(ctx, l.OriginalID); err != nil {
		return err
	}
	if v.ResendOf, err = s.optionalLaunch(ctx, l.ResendOf); err != nil {
		return err
	}
	if v.Acting, err = s.store.ActingOn(ctx, nil, l.ID); err != nil {
		return err
	}
	if l.State == StateResent {
		v.ResentAs, _ = s.store.ResendOfLaunch(ctx, l.ID)
	}
	return nil
}

// optionalLaunch loads the launch id names, if it names one.
func (s *Service) optionalLaunch(ctx context.Context, id *uuid.UUID) (*Launch, error) {
	if id == nil {
		return nil, nil
	}
	return s.store.Launch(ctx, nil, *id)
}

// offerNextSteps says what the viewer may do next with the launch, run at loc:
// what its state allows, if their rights allow it too.
func (v *LaunchView) offerNextSteps(loc Location) {
	l, acc := v.Launch, v.Access
	tip, void, saleWithCard := nextSteps(l, v.Acting)
	v.CanTip = tip && acc.mayLaunch(KindTip, 1, loc) == nil
	v.CanVoid = void && acc.mayLaunch(KindVoid, 1, loc) == nil
	v.CanSaleWithCard = saleWithCard && acc.mayLaunch(KindTokenSale, 1, loc) == nil
	unknown := l.State == StateUnknown
	v.CanConfirm = unknown && (acc.Staff || acc.UseTerminals)
	v.CanResend = unknown && acc.mayLaunch(l.Kind, l.Amount(), loc) == nil
}

// nextSteps says what an approved launch allows next by its state alone: a tip
// and a void on a sale not voided yet (a void on a return too), a sale with a
// saved card.
func nextSteps(l *Launch, acting []*Launch) (tip, void, saleWithCard bool) {
	if l.State != StateApproved || l.UniqueTransID == nil {
		return false, false, false
	}
	sale := (l.Kind == KindSale || l.Kind == KindTokenSale) && !l.Duplicate
	open := voidOf(acting) == nil
	return sale && open, (sale || l.Kind == KindReturn) && open, l.Kind == KindSaveCard
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
	if err := s.formOriginal(ctx, merchantID, v); err != nil {
		return nil, err
	}
	loc, ok := acc.Merchant.Location(v.Request.LocationID)
	if !ok {
		return nil, models.ErrNotFound
	}
	v.Location = Location{ID: loc.ID, Name: loc.Name, TestMode: loc.TestMode}
	if err := s.formDevices(ctx, merchantID, v); err != nil {
		return nil, err
	}
	if !acc.Offers(kind, loc.TestMode) {
		return nil, acc.mayLaunch(kind, 1, loc)
	}
	if err := s.formChoices(ctx, merchantID, v); err != nil {
		return nil, err
	}
	if v.Request.Cashier == "" {
		v.Request.Cashier = truncate(u.DisplayName(), maxCashier)
	}
	return v, nil
}

// formOriginal loads the sale the form acts on, if it names one of the
// merchant's launches (another is not shown; checking the launch words that),
// with its total. A tip runs on its sale's device, and so does a void unless the
// form moved it to another.
func (s *Service) formOriginal(ctx context.Context, merchantID uuid.UUID, v *FormView) error {
	id, ok := parseID(v.Request.Original)
	if !ok || id == nil {
		return nil
	}
	o, err := s.store.MerchantLaunch(ctx, merchantID, *id)
	if err != nil {
		return nil
	}
	v.Original = o
	if v.Kind == KindTip || (v.Kind == KindVoid && v.Request.Device == "") {
		v.Request.LocationID, v.Request.Device = o.LocationID, o.DeviceName
	}
	acting, err := s.store.ActingOn(ctx, nil, o.ID)
	if err != nil {
		return err
	}
	v.CurrentTotal = currentTotal(o, acting)
	return nil
}

// formDevices lists the location's devices in use and finds the form's among
// them; a device the location does not have (or no more) is not found.
func (s *Service) formDevices(ctx context.Context, merchantID uuid.UUID, v *FormView) error {
	all, err := s.store.Devices(ctx, merchantID)
	if err != nil {
		return err
	}
	for _, d := range all {
		if d.LocationID == v.Location.ID && d.RemovedAt == nil {
			v.Devices = append(v.Devices, d)
			if d.DeviceName == v.Request.Device {
				v.Device = d
			}
		}
	}
	if v.Device == nil {
		return models.ErrNotFound
	}
	return nil
}

// formChoices loads what the form chooses from: the saved cards a token sale may
// charge, the sales a return may be linked to (those with something left to
// refund).
func (s *Service) formChoices(ctx context.Context, merchantID uuid.UUID, v *FormView) error {
	var err error
	switch v.Kind {
	case KindTokenSale:
		v.SavedCards, err = s.store.SavedCards(ctx, merchantID)
	case KindReturn:
		var page *payments.Page
		if page, err = s.ledger.List(ctx, nil, payments.Filter{MerchantID: merchantID, Kind: payments.KindSale, Limit: 50}); err != nil {
			return err
		}
		for _, t := range page.Transactions {
			if t.RefundableCents() > 0 {
				v.Sales = append(v.Sales, t)
			}
		}
	}
	return err
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
