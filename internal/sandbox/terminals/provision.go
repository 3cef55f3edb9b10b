package terminals

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/payportal/portal/internal/sandbox/kit"
)

// locationSpec is what creating a location needs.
type locationSpec struct {
	Name          string
	ApplicationID string // the merchant whose API key the location shares; "" for a key of its own
	Production    bool
	ShortIDs      bool
	Level2        bool
}

// Provision gives a boarded merchant its terminal cloud account, as the
// operator's integration specialists would: an API key and one test
// location with an emulator and two modelled terminals. It is idempotent
// per m.ApplicationID: a repeat returns the same credentials and creates
// nothing.
func (a *Area) Provision(ctx context.Context, m kit.Merchant) (kit.TerminalCredentials, error) {
	if strings.TrimSpace(m.ApplicationID) == "" {
		return kit.TerminalCredentials{}, errors.New("terminals sandbox: provision needs the application id")
	}
	if err := ctx.Err(); err != nil {
		return kit.TerminalCredentials{}, err
	}
	var creds kit.TerminalCredentials
	err := a.env.Store.DB.Update(func(tx *bolt.Tx) error {
		var rec merchantRecord
		err := kit.Get(tx, bucketMerchants, m.ApplicationID, &rec)
		if err == nil {
			creds, err = credentials(tx, rec)
			return err
		}
		if !errors.Is(err, kit.ErrNotFound) {
			return err
		}
		name := strings.TrimSpace(m.Name)
		if name == "" {
			name = "Main location"
		}
		l, err := a.createLocation(tx, locationSpec{Name: name, ApplicationID: m.ApplicationID})
		if err != nil {
			return err
		}
		creds = kit.TerminalCredentials{APIKey: l.APIKey, Locations: []kit.TerminalLocation{{LocationID: l.LocationID, Name: l.Name}}}
		return nil
	})
	if err != nil {
		return kit.TerminalCredentials{}, fmt.Errorf("terminals sandbox: provision %s: %w", m.ApplicationID, err)
	}
	a.env.Log.Info("terminal cloud account provisioned", "application_id", m.ApplicationID, "locations", len(creds.Locations))
	return creds, nil
}

// credentials rebuilds a merchant's credentials from its record.
func credentials(tx *bolt.Tx, rec merchantRecord) (kit.TerminalCredentials, error) {
	creds := kit.TerminalCredentials{APIKey: rec.APIKey}
	for _, id := range rec.LocationIDs {
		l, err := getLocation(tx, id)
		if err != nil {
			return creds, fmt.Errorf("location %s: %w", id, err)
		}
		creds.Locations = append(creds.Locations, kit.TerminalLocation{LocationID: l.LocationID, Name: l.Name})
	}
	return creds, nil
}

// createLocation stores a new location with an emulator and two modelled
// terminals, under the merchant's API key when spec names one (a merchant
// without one gets its record and key here).
func (a *Area) createLocation(tx *bolt.Tx, spec locationSpec) (*location, error) {
	now := a.env.Clock.Now().UTC()
	seq, err := nextSequence(tx, bucketLocations)
	if err != nil {
		return nil, err
	}
	l := &location{
		ConfigID: hexID(), LocationKey: 10000 + int(seq), Name: spec.Name, ApplicationID: spec.ApplicationID,
		ControllerName: fmt.Sprintf("SBX-CTRL-%05d", seq), ApplicationKey: hexID(), CreatedOn: now,
		Production: spec.Production, ShortIDs: spec.ShortIDs, Level2: spec.Level2,
	}
	for {
		l.LocationID = locationCode()
		if _, err := getLocation(tx, l.LocationID); errors.Is(err, kit.ErrNotFound) {
			break
		}
	}
	var rec merchantRecord
	if spec.ApplicationID != "" {
		if err := kit.Get(tx, bucketMerchants, spec.ApplicationID, &rec); err != nil && !errors.Is(err, kit.ErrNotFound) {
			return nil, err
		}
	}
	if rec.APIKey == "" {
		rec.APIKey = apiKey()
		if err := kit.Put(tx, bucketKeys, rec.APIKey, spec.ApplicationID); err != nil {
			return nil, err
		}
	}
	l.APIKey = rec.APIKey
	l.Devices = []device{
		{Name: "EMULATOR", Type: "Emulator", TCPPort: "10009", IsDefault: true},
		{Name: "COUNTER-S300", Type: "S300", TCPPort: "10009", SerialNumber: fmt.Sprintf("53%06d", 2*seq), RequestSignature: true},
		{Name: "TABLE-D210", Type: "D210", TCPPort: "10009", SerialNumber: fmt.Sprintf("82%06d", 2*seq+1), PromptForTip: true},
	}
	for i := range l.Devices {
		d := &l.Devices[i]
		d.ID, d.CreatedOn, d.DuplicateDetection, d.Batch = hexID(), now, true, 1
		d.IPAddress = fmt.Sprintf("192.168.%d.%d", 10+seq%200, 20+i)
	}
	if err := putLocation(tx, l); err != nil {
		return nil, err
	}
	if spec.ApplicationID != "" {
		rec.LocationIDs = append(rec.LocationIDs, l.LocationID)
		if err := kit.Put(tx, bucketMerchants, spec.ApplicationID, rec); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// localTimestamp writes t as the results' zone-less local timestamp,
// 2017-11-14T22:11:50.9330000, in zone.
func localTimestamp(t time.Time, zone *time.Location) string {
	return t.In(zone).Format("2006-01-02T15:04:05.0000000")
}

// zoneOffsetHours is zone's offset from UTC at t, in whole hours.
func zoneOffsetHours(t time.Time, zone *time.Location) int {
	_, secs := t.In(zone).Zone()
	return secs / 3600
}
