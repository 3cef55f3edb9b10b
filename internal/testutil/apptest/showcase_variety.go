package apptest

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/payportal/portal/internal/models"
)

// outcomes adds an application in each outcome the dashboard shows that the
// rest of the showcase does not reach: needs attention, more information
// needed and withdrawn. (Submitting is left out: its push runs at once, so
// no picture could hold it.)
func (s *Showcase) outcomes(t testing.TB, owner *models.User) {
	t.Helper()
	s.application(t, owner, "Sunrise Laundromat", models.StatusNeedsAttention)
	moreInfo := s.application(t, owner, "Willamette Valley Vineyard Tasting Room", models.StatusLinked)
	s.webhook(t, moreInfo, "processingPending")
	withdrawn := s.application(t, owner, "Old Town Pizza", models.StatusLinked)
	s.webhook(t, withdrawn, "withdrawn")
}

// customers saves customers with long names beside the short one.
func (s *Showcase) customers(t testing.TB, c *Client, base string) {
	t.Helper()
	for _, v := range []url.Values{
		{"name": {longCardholder}, "email": {"bartholomew.worthington@hawthorne-catering.example"}, "reference": {"CUST-8"}},
		{"name": {longCardholder2}, "email": {"alexandria@example.com"}, "reference": {"CUST-9"}},
	} {
		if res := c.PostForm(base+"/customers", v); res.Status != http.StatusSeeOther {
			t.Fatalf("save a customer: %d\n%s", res.Status, res.Body)
		}
	}
}

// terminalBadges gives the terminals every health badge: the page is
// visited once (which downloads each location's configuration), then the
// portal's evidence of each device is set as launches would have left it.
// The second location's download is three days old.
func (s *Showcase) terminalBadges(t testing.TB, c *Client, base string) {
	t.Helper()
	if res := c.Get(base + "/terminals"); res.Status != http.StatusOK {
		t.Fatalf("terminals page: %d %s\n%s", res.Status, res.Location, res.Body)
	}
	ctx := context.Background()
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`UPDATE terminal_devices SET last_ok_at = refreshed_at, last_ok_ms = 840, last_result_at = refreshed_at
			WHERE location_id = $1 AND device_name = 'EMULATOR'`, []any{s.Location}},
		{`UPDATE terminal_devices SET error_streak = 1, last_error = 'The terminal did not answer in time.', last_error_at = refreshed_at
			WHERE location_id = $1 AND device_name = 'COUNTER-S300'`, []any{s.Location}},
		{`UPDATE terminal_devices SET error_streak = 4, last_error = 'The terminal is offline.', last_error_at = refreshed_at
			WHERE location_id = $1 AND device_name = 'TABLE-D210'`, []any{s.Location}},
		{`INSERT INTO terminal_devices (location_id, device_name, merchant_id, model, serial_number, refreshed_at, removed_at)
			SELECT location_id, 'KIOSK-A920', merchant_id, 'A920', '91000004', refreshed_at, refreshed_at FROM terminal_devices
			WHERE location_id = $1 AND device_name = 'EMULATOR'`, []any{s.Location}},
		{`INSERT INTO terminal_devices (location_id, device_name, merchant_id, model, serial_number, refreshed_at)
			SELECT location_id, 'PATIO-D210', merchant_id, 'D210', '82000005', refreshed_at FROM terminal_devices
			WHERE location_id = $1 AND device_name = 'EMULATOR'`, []any{s.Location}},
		{`UPDATE terminal_configs SET fetched_at = fetched_at - interval '3 days', attempted_at = attempted_at - interval '3 days'
			WHERE location_id = $1`, []any{s.BackOffice}},
		{`UPDATE terminal_devices SET refreshed_at = refreshed_at - interval '3 days' WHERE location_id = $1`, []any{s.BackOffice}},
	} {
		if _, err := s.Env.DB.Pool.Exec(ctx, q.sql, q.args...); err != nil {
			t.Fatalf("terminal badges: %v", err)
		}
	}
}
