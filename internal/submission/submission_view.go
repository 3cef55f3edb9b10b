package submission

import (
	"context"
	"fmt"
	"hash/fnv"
	"net/url"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/documents"
	"github.com/payportal/portal/internal/mail"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/states"
	upstream "github.com/payportal/portal/internal/upstream/accounts"
)

// The states of a push step, as the progress display shows them.
const (
	StepDone    = "done"
	StepActive  = "active"
	StepWaiting = "waiting"
	StepFailed  = "failed"
)

// ProgressStep is one step of the push: start, data, one per document, link.
type ProgressStep struct {
	Title string
	State string
	// Detail adds what is known: a document's failure, an attempt count.
	Detail string
	At     *time.Time
}

// StateText is the step's state in words, so it never rests on colour alone.
func (s ProgressStep) StateText() string {
	switch s.State {
	case StepDone:
		return "Done"
	case StepActive:
		return "In progress"
	case StepFailed:
		return "Failed"
	}
	return "Waiting"
}

// Progress is the push of an application, step by step.
type Progress struct {
	App   *models.Application
	Steps []ProgressStep
	// Done counts the finished steps, of len(Steps).
	Done int
}

// Total is the number of steps.
func (p *Progress) Total() int { return len(p.Steps) }

// Running reports whether the push is under way, so the page keeps polling.
func (p *Progress) Running() bool { return p.App.Status == models.StatusSubmitting }

// Failed reports whether the push stopped and the application is back with the rep.
func (p *Progress) Failed() bool { return p.App.Status == models.StatusNeedsAttention }

// Linked reports whether the hand-off is complete.
func (p *Progress) Linked() bool { return p.App.Locked() }

// Summary says in one sentence where the push stands, for screen readers.
func (p *Progress) Summary() string {
	switch {
	case p.Linked():
		return "Submitted: the merchant's link is ready."
	case p.Failed():
		return "The submission stopped and needs your attention."
	}
	for i, s := range p.Steps {
		if s.State == StepActive {
			return fmt.Sprintf("Submitting: step %d of %d, %s.", i+1, len(p.Steps), lowerFirst(s.Title))
		}
	}
	return fmt.Sprintf("Submitting: %d of %d steps done.", p.Done, len(p.Steps))
}

// buildProgress lays out the steps from what the application row and its
// documents record.
func buildProgress(a *models.Application, docs []models.Document) Progress {
	p := Progress{App: a}
	add := func(title string, doneAt *time.Time, done bool, detail string) {
		st := ProgressStep{Title: title, State: StepWaiting, Detail: detail}
		if done {
			st.State, st.At = StepDone, doneAt
			p.Done++
		}
		p.Steps = append(p.Steps, st)
	}
	add("Start the application at the processor", a.UpstreamStartedAt, a.UpstreamStartedAt != nil, "")
	add("Send the application details", a.DataSentAt, a.DataSentAt != nil, "")
	for _, d := range docs {
		detail := ""
		if d.UpstreamStatus != "uploaded" && d.UpstreamError != nil {
			detail = *d.UpstreamError
		}
		add("Upload “"+d.DisplayName+"”", d.UpstreamUploadedAt, d.UpstreamStatus == "uploaded", detail)
	}
	add("Create the merchant's link", a.LinkedAt, a.LinkedAt != nil, "")
	// The first unfinished step is the one under way, or the one that failed.
	for i := range p.Steps {
		s := &p.Steps[i]
		if s.State == StepDone {
			continue
		}
		switch a.Status {
		case models.StatusSubmitting:
			s.State = StepActive
			if a.PushAttempts > 1 {
				s.Detail = joinSentences(s.Detail, fmt.Sprintf("Attempt %d.", a.PushAttempts))
			}
		case models.StatusNeedsAttention:
			s.State = StepFailed
		}
		return p
	}
	return p
}

// View is everything the application page shows about a submission:
// the progress of the push, and once handed off the link, what was sent
// (personal numbers masked) and the e-mails to the merchant.
type View struct {
	App      *models.Application
	Progress Progress
	// Sent is the submitted data, masked; nil before the first
	Sent *upstream.ApplicationData
	// HandoffLink is the processor's link to the merchant's application, for the rep to
	// copy (the e-mails carry tracked links of their own).
	HandoffLink string
	// Emails are the hand-off e-mails, newest first.
	Emails []mail.Message
	// ViewerIsAdmin shows admins the link to fix a refused pricing code.
	ViewerIsAdmin bool
}

// PricingCodeRefused reports whether the submission stopped because the
// upstream refused the pricing model's code.
func (v *View) PricingCodeRefused() bool {
	return v.App.Status == models.StatusNeedsAttention && deref(v.App.LastErrorKind) == applications.ErrorKindPricingCode
}

// PricingModelPath is the admin page of the application's pricing model, or
// "" without one.
func (v *View) PricingModelPath() string {
	if v.App.PricingModelID == nil {
		return ""
	}
	return "/admin/pricing/" + v.App.PricingModelID.String()
}

// AppID is the application's id, for the templates.
func (v *View) AppID() uuid.UUID { return v.App.ID }

// CanResend reports whether e-mailing the merchant's link again makes sense: not once the
// processor has decided (boarded, declined, withdrawn).
func (v *View) CanResend() bool {
	return v.App.UpstreamStatus == nil || !states.Decided(*v.App.UpstreamStatus)
}

// EmailStatus says where an e-mail to the merchant stands, as the viewer can
// act on it: admins, who run the outbox, read its status there (the page links
// it); a rep reads what is true for them, since the outbox is not theirs.
func (v *View) EmailStatus(m mail.Message) string {
	if v.ViewerIsAdmin {
		return m.StatusText()
	}
	switch {
	case m.Status == mail.StatusHeld:
		return "Kept for delivery (an administrator sees the details in the outbox)"
	case m.Status == mail.StatusFailed:
		return "Not delivered (an administrator sees why in the outbox)"
	case m.Status == mail.StatusPending && m.Attempts > 0:
		return "Being sent again after a failed attempt"
	}
	return m.StatusText()
}

// SentSections lays out what was sent for reading.
func (v *View) SentSections() []SentSection { return sentSections(v.Sent) }

// Views gathers what pages show about submissions. The workspace
// page (Service.Workspace) and the progress poll share it.
type Views struct {
	docs      *documents.Store
	outbox    *mail.Outbox
	publicURL *url.URL
	links     LinkOpener
}

// LinkOpener opens an application's sealed hand-off link (*applications.Store).
type LinkOpener interface {
	OpenHandoffLink(a *models.Application) (string, error)
}

// WithLinks lets the views show the processor's link of a handed-off application.
func (s *Views) WithLinks(links LinkOpener) *Views {
	s.links = links
	return s
}

// NewViews returns the submission views; publicURL is the portal's
// address, for the merchant's tracking link.
func NewViews(docs *documents.Store, outbox *mail.Outbox, publicURL *url.URL) *Views {
	return &Views{docs: docs, outbox: outbox, publicURL: publicURL}
}

// Progress loads the push progress of an application u may see; nil for a
// draft that was never submitted.
func (s *Submissions) Progress(ctx context.Context, u *models.User, id uuid.UUID) (*View, error) {
	a, err := s.d.Apps.Visible(ctx, nil, u, id)
	if err != nil {
		return nil, err
	}
	v, err := s.d.Views.View(ctx, a)
	if v != nil {
		v.ViewerIsAdmin = u.IsAdmin()
	}
	return v, err
}

// View gathers what the page shows about a's submission; nil for a draft that
// was never submitted.
func (s *Views) View(ctx context.Context, a *models.Application) (*View, error) {
	if a.SubmissionCount == 0 && a.Status == models.StatusDraft && !a.Locked() {
		return nil, nil
	}
	docs, err := s.docs.List(ctx, a.ID)
	if err != nil {
		return nil, err
	}
	v := &View{App: a, Progress: buildProgress(a, docs)}
	if v.Sent, err = applications.MaskedSnapshot(a); err != nil {
		return nil, err
	}
	if a.Locked() {
		// Tracked links are kept only as hashes; the rep's copy is the processor's link.
		if s.links != nil {
			if v.HandoffLink, err = s.links.OpenHandoffLink(a); err != nil {
				return nil, err
			}
		}
		msgs, err := s.outbox.ForApplication(ctx, a.ID)
		if err != nil {
			return nil, err
		}
		for _, m := range msgs {
			if m.Kind == mail.KindHandoff {
				v.Emails = append(v.Emails, m)
			}
		}
	}
	return v, nil
}

func joinSentences(a, b string) string {
	if a == "" {
		return b
	}
	return a + " " + b
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	if r[0] >= 'A' && r[0] <= 'Z' {
		r[0] += 'a' - 'A'
	}
	return string(r)
}

// Fingerprint identifies what the progress shows, so a poll can be answered
// "nothing changed" (204) without sending the same steps again.
func (v *View) Fingerprint() string {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s|%d|%d|%s|", v.App.Status, v.App.SubmissionCount, v.App.PushAttempts, deref(v.App.LastError))
	for _, s := range v.Progress.Steps {
		fmt.Fprintf(h, "%s|%s|%s|", s.Title, s.State, s.Detail)
	}
	return strconv.FormatUint(h.Sum64(), 36)
}

// UpstreamStatusText is the processor's state of the application, in words.
func (v *View) UpstreamStatusText() string {
	if v.App.UpstreamStatus == nil || *v.App.UpstreamStatus == "" {
		return "No news from the processor yet"
	}
	return applications.UpstreamStatusLabel(*v.App.UpstreamStatus)
}

// State is the processor's state of the application from the one state
// table: its label, explanation and what the rep can do.
func (v *View) State() states.State { return applications.State(v.App) }
