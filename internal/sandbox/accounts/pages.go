package accounts

import (
	"net/http"
	"net/url"
)

// pagePrefix is the path of the merchant pages; a link is pagePrefix + id.
const pagePrefix = "/app/"

// maxFormBody bounds the merchant pages' form posts.
const maxFormBody = 64 << 10

// handleDetailsPage is where the application link lands. The first visit
// moves the application from requested to inProgress. It shows the details
// the partner filled in and asks for the required ones that are missing.
func (s *Server) handleDetailsPage(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("applicationId")
	s.mu.Lock()
	a, ok := s.openLocked(id)
	if !ok {
		s.mu.Unlock()
		s.linkNotFound(w)
		return
	}
	if a.status != StatusInProgress {
		s.mu.Unlock()
		http.Redirect(w, r, pagePrefix+id+"/done", http.StatusSeeOther)
		return
	}
	view := s.detailsViewLocked(a, nil, nil, "")
	s.mu.Unlock()
	s.views.render(w, http.StatusOK, "details", "Confirm your details", view)
}

// handleDetailsSubmit takes the missing details, checks each one, and
// either re-renders the form with a message beside every wrong field (422,
// values kept) or saves them and moves on to the terms.
func (s *Server) handleDetailsSubmit(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("applicationId")
	if !readForm(w, r) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.openLocked(id)
	if !ok {
		s.linkNotFound(w)
		return
	}
	if a.status != StatusInProgress {
		http.Redirect(w, r, pagePrefix+id+"/done", http.StatusSeeOther)
		return
	}
	merged, values, errs := s.applyForm(a, r.PostForm)
	if len(errs) > 0 {
		view := s.detailsViewLocked(a, values, errs, "Some details need your attention. Each one is marked below.")
		s.views.render(w, http.StatusUnprocessableEntity, "details", "Confirm your details", view)
		return
	}
	if err := checkWhole(merged); err != nil {
		view := s.detailsViewLocked(a, values, nil, "These details cannot be accepted: "+err.Message+".")
		s.views.render(w, http.StatusUnprocessableEntity, "details", "Confirm your details", view)
		return
	}
	a.data = merged
	a.updated = s.opts.Clock.Now()
	http.Redirect(w, r, pagePrefix+id+"/terms", http.StatusSeeOther)
}

// applyForm reads the missing fields from the form into a copy of the
// application data. It returns the copy, the typed values and the message
// of every field that is wrong.
func (s *Server) applyForm(a *application, form url.Values) (map[string]any, map[string]string, map[string]string) {
	merged := cloneJSON(a.data)
	values, errs := map[string]string{}, map[string]string{}
	now := s.opts.Clock.Now()
	for _, f := range s.missingLocked(a) {
		raw := form.Get(f.Path)
		values[f.Path] = raw
		v, msg := parseInput(f, raw, now)
		if msg != "" {
			errs[f.Path] = msg
			continue
		}
		setPath(merged, f.Path, v)
	}
	return merged, values, errs
}

// handleTermsPage shows the terms once every required detail is there.
func (s *Server) handleTermsPage(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("applicationId")
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.redirectBeforeTermsLocked(w, r, id) {
		return
	}
	s.views.render(w, http.StatusOK, "terms", "Terms and conditions", s.termsViewLocked(s.apps[id], ""))
}

// handleTermsSubmit accepts the terms and submits the application, which
// moves it to processing.
func (s *Server) handleTermsSubmit(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("applicationId")
	if !readForm(w, r) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.redirectBeforeTermsLocked(w, r, id) {
		return
	}
	a := s.apps[id]
	if r.PostForm.Get("accept") != "yes" {
		view := s.termsViewLocked(a, "Tick the box to accept the terms and conditions before you submit.")
		s.views.render(w, http.StatusUnprocessableEntity, "terms", "Terms and conditions", view)
		return
	}
	s.setStatusLocked(a, StatusProcessing)
	http.Redirect(w, r, pagePrefix+id+"/done", http.StatusSeeOther)
}

// redirectBeforeTermsLocked answers for the terms routes when the merchant
// is not at that step: unknown link, already submitted, or details missing.
func (s *Server) redirectBeforeTermsLocked(w http.ResponseWriter, r *http.Request, id string) bool {
	a, ok := s.openLocked(id)
	switch {
	case !ok:
		s.linkNotFound(w)
	case a.status != StatusInProgress:
		http.Redirect(w, r, pagePrefix+id+"/done", http.StatusSeeOther)
	case len(s.missingLocked(a)) > 0:
		http.Redirect(w, r, pagePrefix+id, http.StatusSeeOther)
	default:
		return false
	}
	return true
}

// handleDonePage confirms the submission and shows the current state.
func (s *Server) handleDonePage(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("applicationId")
	s.mu.Lock()
	a, ok := s.openLocked(id)
	if !ok {
		s.mu.Unlock()
		s.linkNotFound(w)
		return
	}
	status := a.status
	s.mu.Unlock()
	if status == StatusInProgress {
		http.Redirect(w, r, pagePrefix+id, http.StatusSeeOther)
		return
	}
	heading, message := statusWords(status)
	s.views.render(w, http.StatusOK, "done", heading, struct {
		ID, Heading, Message string
		Status               Status
	}{id, heading, message, status})
}

// openLocked finds the application behind a link. A visit to a freshly
// requested application marks it inProgress. The caller holds s.mu.
func (s *Server) openLocked(id string) (*application, bool) {
	a, ok := s.apps[id]
	if !ok || !a.linked {
		return nil, false
	}
	if a.status == StatusRequested {
		s.setStatusLocked(a, StatusInProgress)
	}
	return a, true
}

func (s *Server) linkNotFound(w http.ResponseWriter) {
	s.views.notice(w, http.StatusNotFound, "Link not found",
		"This application link does not exist or has not been issued yet. Ask your provider for a new link.")
}

// sameOrigin refuses form posts that another site makes the browser send:
// the Origin must be the host the request came to or the public base URL's.
func (s *Server) sameOrigin(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
			http.Error(w, "cross-site form posts are refused", http.StatusForbidden)
			return
		}
		if o := r.Header.Get("Origin"); o != "" && o != "null" {
			s.mu.Lock()
			public := s.publicURL
			s.mu.Unlock()
			u, err := url.Parse(o)
			p, _ := url.Parse(public)
			if err != nil || (u.Host != r.Host && (p == nil || u.Host != p.Host)) {
				http.Error(w, "cross-site form posts are refused", http.StatusForbidden)
				return
			}
		}
		next(w, r)
	}
}

// statusWords is what the confirmation page says for each state.
func statusWords(st Status) (string, string) {
	switch st {
	case StatusProcessing, StatusProcessingPending:
		return "Application submitted", "Thank you. Your application has been submitted and is being reviewed. We will tell your provider when it is decided."
	case StatusDeclined:
		return "Application declined", "Your application was declined. Your provider can tell you more."
	case StatusWithdrawn:
		return "Application withdrawn", "This application was withdrawn."
	case StatusBoarded, StatusInstalled, StatusActive:
		return "Account open", "Your merchant account is open."
	}
	return "Application", "This application is not ready for you yet."
}

// readForm parses a merchant page's form, capped at maxFormBody, answering 400
// itself when it cannot.
func readForm(w http.ResponseWriter, r *http.Request) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBody)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "could not read the form", http.StatusBadRequest)
		return false
	}
	return true
}
