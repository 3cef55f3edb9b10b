package accounts

import (
	"net/http"
	"reflect"
	"regexp"
	"slices"

	"github.com/google/uuid"
)

// uuidShape is the shape of externalApplicationId: UUID text, any version.
var uuidShape = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// handleStart creates an application, or returns the one already started
// with the same externalApplicationId (201 for a new one, 200 for a repeat).
func (s *Server) handleStart(w http.ResponseWriter, r *http.Request) error {
	body, err := readJSON(w, r)
	if err != nil {
		return err
	}
	if err := (shapeChecker{now: s.opts.Clock.Now()}).check(body, reflect.TypeFor[startBody](), ""); err != nil {
		return err
	}
	extID, _ := body["externalApplicationId"].(string)
	pricing, _ := body["pricingCode"].(string)
	switch {
	case extID == "":
		return fieldError("externalApplicationId", "is required")
	case !uuidShape.MatchString(extID):
		return fieldError("externalApplicationId", "must be a UUID")
	case pricing == "":
		return fieldError("pricingCode", "is required")
	case len(s.opts.PricingCodes) > 0 && !slices.Contains(s.opts.PricingCodes, pricing):
		return fieldError("pricingCode", "is not a pricing code issued to this partner")
	}
	data := map[string]any{}
	for _, k := range dataSections {
		if v, ok := body[k]; ok {
			data[k] = v
		}
	}
	data = withoutNulls(data).(map[string]any)
	if err := checkWhole(data); err != nil {
		return err
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if id, ok := s.byExternal[extID]; ok {
		a := s.apps[id]
		if a.pricingCode != pricing {
			return newError(http.StatusConflict, "externalApplicationId: already started with another pricingCode")
		}
		writeJSON(w, http.StatusOK, map[string]string{"applicationId": id})
		return nil
	}
	now := s.opts.Clock.Now()
	a := &application{
		id: uuid.NewString(), externalID: extID, pricingCode: pricing,
		data: data, created: now, updated: now, files: map[string]*storedFile{},
	}
	s.apps[a.id] = a
	s.order = append(s.order, a.id)
	s.byExternal[extID] = a.id
	s.setStatusLocked(a, StatusInitiated)
	writeJSON(w, http.StatusCreated, map[string]string{"applicationId": a.id})
	return nil
}

// handlePatch merges application data, until a link has been generated.
// It answers 204 with no body.
func (s *Server) handlePatch(w http.ResponseWriter, r *http.Request) error {
	body, err := readJSON(w, r)
	if err != nil {
		return err
	}
	if err := (shapeChecker{now: s.opts.Clock.Now()}).check(body, reflect.TypeFor[applicationData](), ""); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	a, err := s.lookupLocked(r.PathValue("applicationId"))
	if err != nil {
		return err
	}
	if a.linked {
		return newError(http.StatusConflict, "the application link has been generated; only the merchant can change values now, in the application pages")
	}
	merged := cloneJSON(a.data)
	mergePatch(merged, body)
	if err := checkWhole(merged); err != nil {
		return err
	}
	a.data = merged
	a.updated = s.opts.Clock.Now()
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// handleLink answers the application link for GET and POST alike. The first
// call generates it and moves the application from initiated to requested.
func (s *Server) handleLink(w http.ResponseWriter, r *http.Request) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, err := s.lookupLocked(r.PathValue("applicationId"))
	if err != nil {
		return err
	}
	if !a.linked {
		a.linked = true
		if a.status == StatusInitiated {
			s.setStatusLocked(a, StatusRequested)
		}
	}
	writeJSON(w, http.StatusOK, map[string]string{"link": s.baseURLLocked(r) + pagePrefix + a.id})
	return nil
}

// lookupLocked finds an application or returns a 404. The caller holds s.mu.
func (s *Server) lookupLocked(id string) (*application, error) {
	a, ok := s.apps[id]
	if !ok {
		return nil, newError(http.StatusNotFound, "application %s not found", id)
	}
	return a, nil
}

// cloneJSON deep-copies decoded JSON, so a failed merge leaves the stored
// data untouched.
func cloneJSON(m map[string]any) map[string]any {
	return withoutNulls(m).(map[string]any)
}
