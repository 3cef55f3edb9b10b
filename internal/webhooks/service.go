package webhooks

import (
	"context"
	"io"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payportal/portal/internal/apikeys"
	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/audit"
	"github.com/payportal/portal/internal/fieldcrypt"
	"github.com/payportal/portal/internal/jobs"
	"github.com/payportal/portal/internal/mail"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/validation"
)

// Deps are the service's collaborators.
type Deps struct {
	Store *Store
	// Keys lists the API keys an endpoint may belong to.
	Keys  *apikeys.Store
	Ring  *fieldcrypt.KeyRing
	Queue *jobs.Queue
	// Outbox tells the admins when an endpoint is disabled for failing.
	Outbox       *mail.Outbox
	PublicURL    *url.URL
	ResellerName string
	// AllowPrivate accepts http:// and private addresses (tests, make run).
	AllowPrivate bool
	Metrics      *Metrics
	Now          func() time.Time
	Log          *slog.Logger
	// Random draws secrets; nil is crypto/rand.
	Random io.Reader
}

// Service holds the admins' use cases of webhook endpoints and their deliveries.
type Service struct {
	store   *Store
	d       Deps
	now     func() time.Time
	metrics *Metrics
}

// NewService returns the service.
func NewService(d Deps) *Service {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	return &Service{store: d.Store, d: d, now: d.Now, metrics: d.Metrics}
}

// errAdminsOnly refuses anyone but an admin.
var errAdminsOnly = apperr.New(apperr.KindForbidden, "Only admins manage webhook endpoints.")

// maxEndpointsPerKey bounds the endpoints of one key.
const maxEndpointsPerKey = 10

// EndpointForm is an admin's form: a new endpoint's address and key, and the events and
// description of any.
type EndpointForm struct {
	URL         string
	KeyID       string
	Description string
	Events      []string
}

// List returns every endpoint.
func (s *Service) List(ctx context.Context) ([]Endpoint, error) { return s.store.List(ctx) }

// Get returns one endpoint, or models.ErrNotFound.
func (s *Service) Get(ctx context.Context, id uuid.UUID) (*Endpoint, error) {
	return s.store.Get(ctx, nil, id, false)
}

// Keys lists the working API keys an endpoint may be registered for.
func (s *Service) Keys(ctx context.Context) ([]apikeys.Key, error) {
	all, err := s.d.Keys.List(ctx)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(all, func(k apikeys.Key) bool { return !k.Works() }), nil
}

// checkCommon checks the events and description of a form.
func checkCommon(in *EndpointForm, errs apperr.FieldErrors) []EventType {
	var events []EventType
	for _, e := range in.Events {
		t := EventType(e)
		if !Known(t) {
			errs.Add("events", "Choose events from the list.")
			return nil
		}
		if !slices.Contains(events, t) {
			events = append(events, t)
		}
	}
	if len(events) == 0 {
		errs.Add("events", "Choose at least one event to send.")
	}
	in.Description = strings.TrimSpace(in.Description)
	if utf8.RuneCountInString(in.Description) > 200 || !validation.IsText(in.Description) {
		errs.Add("description", "Use at most 200 characters of text on one line.")
	}
	return events
}

// Create registers an endpoint and returns it with its signing secret, shown this once.
func (s *Service) Create(ctx context.Context, admin *models.User, in EndpointForm) (*Endpoint, string, error) {
	if !admin.IsAdmin() {
		return nil, "", errAdminsOnly
	}
	errs := apperr.FieldErrors{}
	address, msg := CheckURL(in.URL, s.d.AllowPrivate)
	if msg != "" {
		errs.Add("url", msg)
	}
	events := checkCommon(&in, errs)
	key, err := s.keyOf(ctx, in.KeyID, errs)
	if err != nil {
		return nil, "", err
	}
	if err := errs.Err(); err != nil {
		return nil, "", err
	}
	secret, err := newSecret(s.d.Random)
	if err != nil {
		return nil, "", err
	}
	now := s.now().UTC()
	e := &Endpoint{ID: uuid.New(), URL: address, Description: in.Description, Events: events, KeyID: key.ID,
		CreatedBy: admin.ID, CreatedAt: now, UpdatedAt: now}
	sealed, err := s.d.Ring.Encrypt(secret, sealAAD(e.ID, "secret"))
	if err != nil {
		return nil, "", err
	}
	err = s.store.InTx(ctx, func(tx pgx.Tx) error {
		n, err := s.store.countForKey(ctx, tx, key.ID)
		if err != nil {
			return err
		}
		if n >= maxEndpointsPerKey {
			return apperr.Invalid("key_id", "This key has 10 endpoints already; delete one first.")
		}
		if err := s.store.insert(ctx, tx, e, sealed); err != nil {
			return err
		}
		return s.record(ctx, tx, admin, e, audit.ActionWebhookEndpointCreated, now)
	})
	if err != nil {
		return nil, "", err
	}
	s.d.Log.Info("webhook endpoint created", "endpoint_id", e.ID, "api_key_id", key.ID, "user_id", admin.ID)
	created, err := s.store.Get(ctx, nil, e.ID, false)
	return created, secret, err
}

// keyOf finds the working key a form names, or adds the field's message.
func (s *Service) keyOf(ctx context.Context, raw string, errs apperr.FieldErrors) (*apikeys.Key, error) {
	id, err := uuid.Parse(raw)
	if err != nil {
		errs.Add("key_id", "Choose the API key whose scope the endpoint follows.")
		return nil, nil
	}
	keys, err := s.Keys(ctx)
	if err != nil {
		return nil, err
	}
	for i := range keys {
		if keys[i].ID == id {
			return &keys[i], nil
		}
	}
	errs.Add("key_id", "Choose a working API key from the list.")
	return nil, nil
}

// Update changes the events an endpoint receives and its description.
func (s *Service) Update(ctx context.Context, admin *models.User, id uuid.UUID, in EndpointForm) error {
	errs := apperr.FieldErrors{}
	events := checkCommon(&in, errs)
	if err := errs.Err(); err != nil {
		return err
	}
	return s.change(ctx, admin, id, func(tx pgx.Tx, e *Endpoint, now time.Time) error {
		if err := s.store.update(ctx, tx, id, events, in.Description, now); err != nil {
			return err
		}
		e.Events = events
		return s.record(ctx, tx, admin, e, audit.ActionWebhookEndpointChanged, now)
	})
}

// SetDisabled stops an endpoint's deliveries (disabled) or starts them again. Enabling
// forgets its failures; deliveries that failed meanwhile are sent again one by one from
// its log.
func (s *Service) SetDisabled(ctx context.Context, admin *models.User, id uuid.UUID, disabled bool) error {
	return s.change(ctx, admin, id, func(tx pgx.Tx, e *Endpoint, now time.Time) error {
		if e.Disabled() == disabled {
			return nil
		}
		if err := s.store.setDisabled(ctx, tx, id, disabled, &admin.ID, now); err != nil {
			return err
		}
		action := audit.ActionWebhookEndpointEnabled
		if disabled {
			action = audit.ActionWebhookEndpointDisabled
		}
		return s.record(ctx, tx, admin, e, action, now)
	})
}

// Rotate draws a new signing secret and returns it, shown this once. The replaced one
// signs beside it for RotationOverlap, so the receiver can switch without missing a
// delivery; a rotation during an overlap drops the oldest.
func (s *Service) Rotate(ctx context.Context, admin *models.User, id uuid.UUID) (string, error) {
	secret, err := newSecret(s.d.Random)
	if err != nil {
		return "", err
	}
	err = s.change(ctx, admin, id, func(tx pgx.Tx, e *Endpoint, now time.Time) error {
		current, _, _, err := s.store.sealedSecrets(ctx, tx, id)
		if err != nil {
			return err
		}
		old, err := s.d.Ring.Decrypt(current, sealAAD(id, "secret"))
		if err != nil {
			return err
		}
		sealed, err := s.d.Ring.Encrypt(secret, sealAAD(id, "secret"))
		if err != nil {
			return err
		}
		previous, err := s.d.Ring.Encrypt(old, sealAAD(id, "previous_secret"))
		if err != nil {
			return err
		}
		if err := s.store.rotate(ctx, tx, id, sealed, previous, now.Add(RotationOverlap), now); err != nil {
			return err
		}
		return s.record(ctx, tx, admin, e, audit.ActionWebhookSecretRotated, now)
	})
	if err != nil {
		return "", err
	}
	return secret, nil
}

// Delete removes an endpoint and its delivery log; pending deliveries stop.
func (s *Service) Delete(ctx context.Context, admin *models.User, id uuid.UUID) error {
	return s.change(ctx, admin, id, func(tx pgx.Tx, e *Endpoint, now time.Time) error {
		if err := s.store.delete(ctx, tx, id); err != nil {
			return err
		}
		return s.record(ctx, tx, admin, e, audit.ActionWebhookEndpointDeleted, now)
	})
}

// change runs an admin's change on the locked endpoint.
func (s *Service) change(ctx context.Context, admin *models.User, id uuid.UUID, fn func(tx pgx.Tx, e *Endpoint, now time.Time) error) error {
	if !admin.IsAdmin() {
		return errAdminsOnly
	}
	return s.store.InTx(ctx, func(tx pgx.Tx) error {
		e, err := s.store.Get(ctx, tx, id, true)
		if err != nil {
			return err
		}
		return fn(tx, e, s.now().UTC())
	})
}

// record writes an endpoint's entry on its key's trail; admin is nil when the portal acts.
func (s *Service) record(ctx context.Context, tx pgx.Tx, admin *models.User, e *Endpoint, action string, at time.Time) error {
	var actor *uuid.UUID
	if admin != nil {
		actor = audit.ActorOf(admin)
	}
	return audit.Record(ctx, tx, audit.Event{Subject: audit.APIKey(e.KeyID), Actor: actor, Action: action,
		Details: audit.WebhookDetails{EndpointID: e.ID.String(), URL: e.URL, Events: eventStrings(e.Events)}, At: at})
}

// openSecrets opens the secrets a delivery is signed with: the current one, and the
// replaced one while its overlap lasts.
func (s *Service) openSecrets(o *outgoing) ([]string, error) {
	current, err := s.d.Ring.Decrypt(o.SecretSealed, sealAAD(o.EndpointID, "secret"))
	if err != nil {
		return nil, err
	}
	secrets := []string{current}
	if o.PreviousSealed != "" && o.PreviousUntil != nil && s.now().Before(*o.PreviousUntil) {
		previous, err := s.d.Ring.Decrypt(o.PreviousSealed, sealAAD(o.EndpointID, "previous_secret"))
		if err != nil {
			return nil, err
		}
		secrets = append(secrets, previous)
	}
	return secrets, nil
}
