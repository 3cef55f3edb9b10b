package terminals

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/models"
	upstream "github.com/payportal/portal/internal/upstream/terminals"
)

// DevicesView is a merchant's terminals page.
type DevicesView struct {
	Access    *Access
	Locations []LocationView
	// Recent are the latest launches, newest first.
	Recent []*Launch
	Now    time.Time
}

// LocationView is one location with its devices.
type LocationView struct {
	ID       string
	Name     string
	TestMode bool
	Config   *Config
	Devices  []DeviceView
}

// DeviceView is one device with its badge and what holds it.
type DeviceView struct {
	Device *Device
	Health Health
	// Open is the launch holding the device, if any.
	Open *Launch
	// Kinds are what the viewer may launch on it.
	Kinds []Kind
}

// Devices builds a merchant's terminals page for u. A location whose
// configuration was never downloaded is downloaded first.
func (s *Service) Devices(ctx context.Context, u *models.User, merchantID uuid.UUID) (*DevicesView, error) {
	acc, err := s.access(ctx, u, merchantID)
	if err != nil {
		return nil, err
	}
	configs, err := s.configsDownloaded(ctx, acc.Merchant)
	if err != nil {
		return nil, err
	}
	devices, err := s.store.Devices(ctx, merchantID)
	if err != nil {
		return nil, err
	}
	open, err := s.store.OpenLaunches(ctx, merchantID)
	if err != nil {
		return nil, err
	}
	recent, err := s.store.RecentLaunches(ctx, merchantID, 20)
	if err != nil {
		return nil, err
	}
	v := &DevicesView{Access: acc, Recent: recent, Now: s.clock.Now()}
	for _, loc := range acc.Merchant.Locations {
		lv := LocationView{ID: loc.ID, Name: loc.Name, TestMode: loc.TestMode, Config: configs[loc.ID]}
		for _, d := range devices {
			if d.LocationID == loc.ID {
				lv.Devices = append(lv.Devices, deviceView(acc, loc, lv.Config, d, open, v.Now))
			}
		}
		v.Locations = append(v.Locations, lv)
	}
	return v, nil
}

// configsDownloaded returns the merchant's location configurations, downloading
// first those never downloaded (a failure is recorded and shown).
func (s *Service) configsDownloaded(ctx context.Context, m *Merchant) (map[string]*Config, error) {
	configs, err := s.store.Configs(ctx, m.ID)
	if err != nil {
		return nil, err
	}
	missing := false
	for _, loc := range m.Locations {
		if _, ok := configs[loc.ID]; !ok && s.configured() == nil {
			_ = s.download(ctx, nil, m.ID, loc) // a failure is recorded and shown
			missing = true
		}
	}
	if !missing {
		return configs, nil
	}
	return s.store.Configs(ctx, m.ID)
}

// deviceView is a device of loc with its badge, the launch holding it and,
// unless it was removed, what the viewer may launch on it.
func deviceView(acc *Access, loc Location, cfg *Config, d *Device, open []*Launch, now time.Time) DeviceView {
	dv := DeviceView{Device: d, Health: HealthOf(d, cfg, now)}
	for _, l := range open {
		if l.LocationID == d.LocationID && l.DeviceName == d.DeviceName {
			dv.Open = l
		}
	}
	if d.RemovedAt != nil {
		return dv
	}
	for _, k := range []Kind{KindSale, KindTokenSale, KindReturn, KindSaveCard} {
		if acc.Offers(k, loc.TestMode) {
			dv.Kinds = append(dv.Kinds, k)
		}
	}
	return dv
}

// Refresh downloads a location's configuration on a person's request and
// records its devices; a failure is recorded (and shown) too.
func (s *Service) Refresh(ctx context.Context, u *models.User, merchantID uuid.UUID, locationID string) error {
	acc, err := s.access(ctx, u, merchantID)
	if err != nil {
		return err
	}
	if !acc.Staff && !acc.UseTerminals {
		return errForbidden("You do not have the right to use this merchant's terminals.")
	}
	loc, ok := acc.Merchant.Location(locationID)
	if !ok {
		return models.ErrNotFound
	}
	if err := s.configured(); err != nil {
		return err
	}
	return s.download(ctx, u, merchantID, loc)
}

// download fetches a location's configuration and stores what it lists,
// with an audit entry when a person asked (u).
func (s *Service) download(ctx context.Context, u *models.User, merchantID uuid.UUID, loc Location) error {
	start := s.clock.Now()
	cfg, err := s.cloud.Config(ctx, loc.Cloud())
	now := s.clock.Now()
	if err != nil {
		problem := problemOfConfig(err)
		s.log.Warn("terminal configuration not downloaded", "merchant_id", merchantID, "location_id", loc.ID, "err", err)
		if rerr := s.store.ConfigFailed(ctx, merchantID, loc.ID, problem, now); rerr != nil {
			return rerr
		}
		return apperr.Wrap(apperr.KindUnavailable, err, problem)
	}
	took := int32(now.Sub(start).Milliseconds())
	c := &Config{LocationID: loc.ID, MerchantID: merchantID, FetchedAt: &now, AttemptedAt: now, FetchMs: &took,
		ControllerName: cfg.ControllerName, ShortIDs: cfg.UseShortUniqueTransID}
	if !cfg.LastHeartbeat.IsZero() {
		c.LastHeartbeat = &cfg.LastHeartbeat
	}
	devices := make([]*Device, 0, len(cfg.Devices))
	for _, d := range cfg.Devices {
		if d.IsDeleted || d.DeviceName == "" {
			continue
		}
		devices = append(devices, &Device{LocationID: loc.ID, DeviceName: d.DeviceName, MerchantID: merchantID,
			Model: d.DeviceType, SerialNumber: d.SerialNumber, IsDefault: d.IsDefault, PromptTip: d.PromptForTipOnTerminal,
			RequestSignature: d.RequestSignature, MandatorySignature: d.MandatorySignature, Active: d.IsActive, RefreshedAt: now})
	}
	return s.inTx(ctx, func(tx pgx.Tx) error {
		if err := s.store.SaveConfig(ctx, tx, c, devices); err != nil {
			return err
		}
		if u == nil {
			return nil
		}
		return audit.Record(ctx, tx, audit.Event{Subject: audit.Subject{Kind: audit.SubjectMerchant, ID: merchantID},
			Actor: audit.ActorOf(u), Action: audit.ActionTerminalsRefreshed, At: now,
			Details: audit.TerminalDetails{LocationID: loc.ID}})
	})
}

// problemOfConfig words a failed configuration download.
func problemOfConfig(err error) string {
	switch {
	case errors.Is(err, upstream.ErrUnauthorized):
		return "The terminal cloud refused the merchant's API key: an admin should check the merchant's terminal credentials."
	case errors.Is(err, upstream.ErrNotFound):
		return "The terminal cloud does not know this location: an admin should check its location id."
	case errors.Is(err, upstream.ErrInvalid):
		return "The merchant has no terminal API key yet: an admin enters it on the merchant's page."
	case upstream.IsTemporary(err):
		return "The terminal cloud did not answer; the devices shown are from the last download. Try again in a moment."
	}
	return "The terminal cloud refused the download."
}
