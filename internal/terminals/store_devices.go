package terminals

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/models"
)

const deviceColumns = `location_id, device_name, merchant_id, model, serial_number, is_default, prompt_tip,
	request_signature, mandatory_signature, active, refreshed_at, removed_at, last_ok_at, last_ok_ms,
	last_result_at, error_streak, last_error, last_error_at`

const configColumns = `location_id, merchant_id, fetched_at, attempted_at, fetch_ms, error, controller_name,
	last_heartbeat, short_ids`

// Devices lists a merchant's devices (removed ones too), by location, the
// default first, then by name.
func (s *Store) Devices(ctx context.Context, merchantID uuid.UUID) ([]*Device, error) {
	rows, err := s.Pool.Query(ctx, `SELECT `+deviceColumns+` FROM terminal_devices WHERE merchant_id = $1
		ORDER BY location_id, removed_at IS NOT NULL, is_default DESC, device_name`, merchantID)
	if err != nil {
		return nil, fmt.Errorf("list terminal devices: %w", err)
	}
	ds, err := pgx.CollectRows(rows, pgx.RowToAddrOfStructByName[Device])
	if err != nil {
		return nil, fmt.Errorf("list terminal devices: %w", err)
	}
	return ds, nil
}

// Device loads one device of a merchant's location.
func (s *Store) Device(ctx context.Context, q database.Querier, merchantID uuid.UUID, locationID, name string) (*Device, error) {
	rows, err := s.On(q).Query(ctx, `SELECT `+deviceColumns+` FROM terminal_devices
		WHERE merchant_id = $1 AND location_id = $2 AND device_name = $3`, merchantID, locationID, name)
	if err != nil {
		return nil, fmt.Errorf("load terminal device: %w", err)
	}
	ds, err := pgx.CollectRows(rows, pgx.RowToAddrOfStructByName[Device])
	if err != nil {
		return nil, fmt.Errorf("load terminal device: %w", err)
	}
	if len(ds) == 0 {
		return nil, models.ErrNotFound
	}
	return ds[0], nil
}

// Configs lists what the portal knows of a merchant's configuration
// downloads.
func (s *Store) Configs(ctx context.Context, merchantID uuid.UUID) (map[string]*Config, error) {
	rows, err := s.Pool.Query(ctx, `SELECT `+configColumns+` FROM terminal_configs WHERE merchant_id = $1`, merchantID)
	if err != nil {
		return nil, fmt.Errorf("list terminal configs: %w", err)
	}
	cs, err := pgx.CollectRows(rows, pgx.RowToAddrOfStructByName[Config])
	if err != nil {
		return nil, fmt.Errorf("list terminal configs: %w", err)
	}
	out := make(map[string]*Config, len(cs))
	for _, c := range cs {
		out[c.LocationID] = c
	}
	return out, nil
}

// SaveConfig records a configuration download: the location's row, its
// devices as listed (added or updated), and removed_at on those it no
// longer lists.
func (s *Store) SaveConfig(ctx context.Context, tx pgx.Tx, c *Config, devices []*Device) error {
	_, err := tx.Exec(ctx, `INSERT INTO terminal_configs (`+configColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
		ON CONFLICT (location_id) DO UPDATE SET merchant_id = $2, fetched_at = $3, attempted_at = $4, fetch_ms = $5,
			error = $6, controller_name = $7, last_heartbeat = $8, short_ids = $9`,
		c.LocationID, c.MerchantID, c.FetchedAt, c.AttemptedAt, c.FetchMs, c.Error, c.ControllerName, c.LastHeartbeat, c.ShortIDs)
	if err != nil {
		return fmt.Errorf("save terminal config: %w", err)
	}
	names := make([]string, 0, len(devices))
	for _, d := range devices {
		names = append(names, d.DeviceName)
		_, err := tx.Exec(ctx, `INSERT INTO terminal_devices (location_id, device_name, merchant_id, model, serial_number,
				is_default, prompt_tip, request_signature, mandatory_signature, active, refreshed_at, removed_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, NULL)
			ON CONFLICT (location_id, device_name) DO UPDATE SET merchant_id = $3, model = $4, serial_number = $5,
				is_default = $6, prompt_tip = $7, request_signature = $8, mandatory_signature = $9, active = $10,
				refreshed_at = $11, removed_at = NULL`,
			d.LocationID, d.DeviceName, d.MerchantID, d.Model, d.SerialNumber, d.IsDefault, d.PromptTip,
			d.RequestSignature, d.MandatorySignature, d.Active, d.RefreshedAt)
		if err != nil {
			return fmt.Errorf("save terminal device: %w", err)
		}
	}
	_, err = tx.Exec(ctx, `UPDATE terminal_devices SET removed_at = $3
		WHERE location_id = $1 AND removed_at IS NULL AND NOT (device_name = ANY($2))`, c.LocationID, names, c.AttemptedAt)
	if err != nil {
		return fmt.Errorf("mark removed terminal devices: %w", err)
	}
	return nil
}

// ConfigFailed records a failed configuration download; the devices stay
// as the last good one listed them.
func (s *Store) ConfigFailed(ctx context.Context, merchantID uuid.UUID, locationID, problem string, at time.Time) error {
	_, err := s.Pool.Exec(ctx, `INSERT INTO terminal_configs (location_id, merchant_id, attempted_at, error)
		VALUES ($1, $2, $3, $4)
		ON CONFLICT (location_id) DO UPDATE SET merchant_id = $2, attempted_at = $3, error = $4`,
		locationID, merchantID, at, problem)
	if err != nil {
		return fmt.Errorf("record terminal config failure: %w", err)
	}
	return nil
}

// NoteAnswer records that the cloud answered a call about a device (a
// launch, or a result read) in d; result is set when the answer was the
// transaction's result. It ends the device's error streak.
func (s *Store) NoteAnswer(ctx context.Context, q database.Querier, locationID, device string, at time.Time, d time.Duration, result bool) error {
	_, err := s.On(q).Exec(ctx, `UPDATE terminal_devices SET last_ok_at = $3, last_ok_ms = $4, error_streak = 0,
			last_result_at = CASE WHEN $5 THEN $3 ELSE last_result_at END
		WHERE location_id = $1 AND device_name = $2`, locationID, device, at, int32(d.Milliseconds()), result)
	if err != nil {
		return fmt.Errorf("record terminal answer: %w", err)
	}
	return nil
}

// NoteFailure records a failed call about a device: the streak grows.
func (s *Store) NoteFailure(ctx context.Context, q database.Querier, locationID, device, problem string, at time.Time) error {
	_, err := s.On(q).Exec(ctx, `UPDATE terminal_devices SET error_streak = error_streak + 1, last_error = $3, last_error_at = $4
		WHERE location_id = $1 AND device_name = $2`, locationID, device, problem, at)
	if err != nil {
		return fmt.Errorf("record terminal failure: %w", err)
	}
	return nil
}
