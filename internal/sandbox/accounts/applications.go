package accounts

import (
	"errors"
	"net/http"
	"reflect"
	"regexp"

	"github.com/google/uuid"
	bolt "go.etcd.io/bbolt"

	"github.com/payportal/portal/internal/sandbox/kit"
)

// uuidShape is the shape of externalApplicationId: UUID text, any version.
var uuidShape = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// handleStart creates an application, or returns the one already started
// with the same externalApplicationId (201 for a new one, 200 for a repeat).
// A pricing code the operator has not issued is refused.
func (s *Server) handleStart(w http.ResponseWriter, r *http.Request) error {
	body, err := kit.ReadObject(w, r)
	if err != nil {
		return err
	}
	start, err := s.readStart(body)
	if err != nil {
		return err
	}
	var id string
	created := false
	err = s.update(func(c *change) error {
		var err error
		id, created, err = s.start(c, start)
		return err
	})
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	kit.WriteJSON(w, status, map[string]string{"applicationId": id})
	return nil
}

// startRequest is a checked body of POST /application/start.
type startRequest struct {
	externalID, pricingCode string
	data                    map[string]any // the sections sent, without nulls
}

// readStart checks a start body: its shape, the two identifiers, and the
// sections sent as a whole.
func (s *Server) readStart(body map[string]any) (startRequest, error) {
	if err := (shapeChecker{now: s.env.Clock.Now()}).check(body, reflect.TypeFor[startBody](), ""); err != nil {
		return startRequest{}, err
	}
	extID, _ := body["externalApplicationId"].(string)
	pricing, _ := body["pricingCode"].(string)
	switch {
	case extID == "":
		return startRequest{}, kit.FieldError("externalApplicationId", "is required")
	case !uuidShape.MatchString(extID):
		return startRequest{}, kit.FieldError("externalApplicationId", "must be a UUID")
	case pricing == "":
		return startRequest{}, kit.FieldError("pricingCode", "is required")
	}
	data := map[string]any{}
	for _, k := range dataSections {
		if v, ok := body[k]; ok {
			data[k] = v
		}
	}
	data = withoutNulls(data).(map[string]any)
	if err := checkWhole(data); err != nil {
		return startRequest{}, err
	}
	return startRequest{externalID: extID, pricingCode: pricing, data: data}, nil
}

// start returns the application already started with the same external id
// (refusing another pricing code), or starts a new one.
func (s *Server) start(c *change, q startRequest) (id string, created bool, err error) {
	if existing := c.tx.Bucket([]byte(bExternal)).Get([]byte(q.externalID)); existing != nil {
		a, err := loadApp(c.tx, string(existing))
		if err != nil {
			return "", false, err
		}
		if a.PricingCode != q.pricingCode {
			return "", false, kit.NewError(http.StatusConflict, "externalApplicationId: already started with another pricingCode")
		}
		return a.ID, false, nil
	}
	if err := s.acceptPricingCode(c, q.pricingCode); err != nil {
		return "", false, err
	}
	a := &appRecord{ID: uuid.NewString(), ExternalID: q.externalID, PricingCode: q.pricingCode,
		Created: c.now, Updated: c.now, Files: []fileRecord{}}
	a.setValues(q.data)
	if err := enlist(c, a); err != nil {
		return "", false, err
	}
	if err := s.setStatus(c, a, StatusInitiated, "partner"); err != nil {
		return "", false, err
	}
	return a.ID, true, saveApp(c.tx, a)
}

// enlist gives a new application its place in the order of applications
// and indexes it by its external id.
func enlist(c *change, a *appRecord) error {
	order := c.tx.Bucket([]byte(bOrder))
	seq, err := order.NextSequence()
	if err != nil {
		return err
	}
	a.Seq = seq
	if err := order.Put(seqKey(seq), []byte(a.ID)); err != nil {
		return err
	}
	return c.tx.Bucket([]byte(bExternal)).Put([]byte(a.ExternalID), []byte(a.ID))
}

// handlePatch merges application data, until a link has been generated.
// It answers 204 with no body.
func (s *Server) handlePatch(w http.ResponseWriter, r *http.Request) error {
	body, err := kit.ReadObject(w, r)
	if err != nil {
		return err
	}
	if err := (shapeChecker{now: s.env.Clock.Now()}).check(body, reflect.TypeFor[applicationData](), ""); err != nil {
		return err
	}
	err = s.update(func(c *change) error {
		a, err := lookup(c.tx, r.PathValue("applicationId"))
		if err != nil {
			return err
		}
		if a.Linked {
			return kit.NewError(http.StatusConflict, "the application link has been generated; only the merchant can change values now, in the application pages")
		}
		merged := a.values()
		mergePatch(merged, body)
		if err := checkWhole(merged); err != nil {
			return err
		}
		a.setValues(merged)
		a.Updated = c.now
		return saveApp(c.tx, a)
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// handleLink answers the application link for GET and POST alike. The first
// call generates it and moves the application from initiated to requested.
func (s *Server) handleLink(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("applicationId")
	linked := false
	err := s.view(func(tx *bolt.Tx) error {
		a, err := lookup(tx, id)
		if err == nil {
			linked = a.Linked
		}
		return err
	})
	if err != nil {
		return err
	}
	if linked { // the common repeat call writes nothing
		kit.WriteJSON(w, http.StatusOK, map[string]string{"link": s.env.BaseURL(r) + pagePrefix + id})
		return nil
	}
	err = s.update(func(c *change) error {
		a, err := lookup(c.tx, r.PathValue("applicationId"))
		if err != nil {
			return err
		}
		id = a.ID
		if a.Linked {
			return nil
		}
		a.Linked = true
		if a.Status == StatusInitiated {
			if err := s.setStatus(c, a, StatusRequested, "partner"); err != nil {
				return err
			}
		}
		return saveApp(c.tx, a)
	})
	if err != nil {
		return err
	}
	kit.WriteJSON(w, http.StatusOK, map[string]string{"link": s.env.BaseURL(r) + pagePrefix + id})
	return nil
}

// lookup finds an application for the API, or answers 404.
func lookup(tx *bolt.Tx, id string) (*appRecord, error) {
	a, err := loadApp(tx, id)
	if errors.Is(err, ErrNotFound) {
		return nil, kit.NewError(http.StatusNotFound, "application %s not found", id)
	}
	return a, err
}
