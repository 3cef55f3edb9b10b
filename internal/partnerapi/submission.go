package partnerapi

import (
	"net/http"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/applications"
	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/submission"
)

// SubmitApplication submits a complete draft to the processor, as the page's button
// does: 202 with the push's progress, or 422 listing what the checklist still wants.
// If-Match is optional here; when sent, a draft changed since is 412.
func (h *Handlers) SubmitApplication(c echo.Context) error {
	id, err := idParam(c, "id")
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	p := principalOf(c)
	actor, err := h.actorFor(ctx, p, id)
	if err != nil {
		return err
	}
	if c.Request().Header.Get("If-Match") != "" {
		version, err := ifMatch(c)
		if err != nil {
			return err
		}
		rec, err := h.d.Workspace.Load(ctx, actor, id)
		if err != nil {
			return err
		}
		if rec.App.Version != version {
			return problem(http.StatusPreconditionFailed, CodePreconditionFailed, "The application changed since the version If-Match names.")
		}
	}
	if err := h.d.Submissions.Submit(ctx, actor, id); err != nil {
		if apperr.KindOf(err) == apperr.KindInvalid {
			return h.notReady(c, actor, id, err)
		}
		return err
	}
	return h.answerSubmission(c, http.StatusAccepted)
}

// notReady refuses a submission with the page's message and, by pointer, each item the
// checklist still wants.
func (h *Handlers) notReady(c echo.Context, actor *models.User, id uuid.UUID, cause error) error {
	_, list, err := h.d.Workspace.Checklist(c.Request().Context(), actor, id)
	if err != nil {
		return err
	}
	items := map[string]string{}
	for _, s := range list.Sections {
		for _, it := range s.Items {
			items[pointerOf(it.Field)] = it.Message
		}
	}
	p := invalid(items)
	p.Detail = apperr.MessageOf(cause)
	return p
}

// GetSubmission answers the push's progress and the processor's status.
func (h *Handlers) GetSubmission(c echo.Context) error {
	return h.answerSubmission(c, http.StatusOK)
}

func (h *Handlers) answerSubmission(c echo.Context, status int) error {
	id, err := idParam(c, "id")
	if err != nil {
		return err
	}
	v, err := h.d.Submissions.Progress(c.Request().Context(), viewer(principalOf(c)), id)
	if err != nil {
		return err
	}
	if v == nil {
		rec, err := h.d.Workspace.Load(c.Request().Context(), viewer(principalOf(c)), id)
		if err != nil {
			return err
		}
		return ok(c, status, submissionBody(rec.App, nil))
	}
	return ok(c, status, submissionBody(v.App, &v.Progress))
}

// submissionBody is where a submission stands: the portal's push, step by step, and the
// processor's state.
func submissionBody(a *models.Application, p *submission.Progress) map[string]any {
	st := applications.State(a)
	steps := []any{}
	done, total := 0, 0
	if p != nil {
		for _, s := range p.Steps {
			steps = append(steps, map[string]any{"title": s.Title, "state": s.State, "detail": s.Detail, "at": tsp(s.At)})
		}
		done, total = p.Done, p.Total()
	}
	return map[string]any{
		"applicationId": a.ID, "state": st.Outcome, "stateLabel": st.Label, "stateExplanation": st.Explanation,
		"status": string(a.Status), "submitted": p != nil, "submissions": a.SubmissionCount, "attempts": a.PushAttempts,
		"steps": steps, "stepsDone": done, "stepsTotal": total, "lastError": a.LastError,
		"processorStatus": a.UpstreamStatus, "processorStatusAt": tsp(a.UpstreamStatusAt),
		"submittedAt": tsp(a.SubmittedAt), "linkedAt": tsp(a.LinkedAt),
	}
}
