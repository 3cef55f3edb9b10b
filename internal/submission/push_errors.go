package submission

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	upstream "github.com/payportal/portal/internal/upstream/accounts"
)

// The steps of a push, in order.
const (
	stepStart     = "start"
	stepData      = "data"
	stepDocuments = "documents"
	stepLink      = "link"
)

// pushError is a failed step of a push, with its cause and what the rep reads.
type pushError struct {
	step string
	// permanent: repeating the step unchanged cannot help; the rep must act.
	permanent bool
	// message says what went wrong in plain words, without personal data.
	message string
	err     error
}

func (e *pushError) Error() string { return "push step " + e.step + ": " + e.err.Error() }
func (e *pushError) Unwrap() error { return e.err }

// errNoUpstream: the portal was started without an upstream connection.
var errNoUpstream = errors.New("applications: no upstream client configured")

// stepFailed classifies an upstream call's failure and words it. Upstream
// refusals that repeating cannot fix (400, 401, 403, 404, 409, 422) are
// permanent; no answer, 429 and 5xx are temporary.
func stepFailed(step string, err error) *pushError {
	return &pushError{step: step, permanent: upstream.IsPermanent(err), message: upstreamWords(step, err), err: err}
}

// permanentFailure is a failure of ours that no retry can fix.
func permanentFailure(step, message string, err error) *pushError {
	return &pushError{step: step, permanent: true, message: message, err: err}
}

// classifyPush returns the push error behind err, treating anything else (a
// database error, a cancelled context) as temporary.
func classifyPush(err error) *pushError {
	var pe *pushError
	if errors.As(err, &pe) {
		return pe
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &pushError{step: "", message: "The submission was interrupted before it finished.", err: err}
	}
	return &pushError{step: "", message: "The portal could not record the progress of the submission.", err: err}
}

// upstreamWords says what an upstream failure means for the rep: the
// upstream's own message when it refused something (it names the field at
// fault, e.g. "banking.depositRouting: must be a valid routing number"),
// otherwise whether it answered at all.
func upstreamWords(step string, err error) string {
	var ue *upstream.Error
	if !errors.As(err, &ue) {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return "The submission was interrupted before it finished."
		}
		return "The processor could not be reached."
	}
	upMessage := strings.TrimSpace(ue.Message)
	if len([]rune(upMessage)) > 300 {
		upMessage = string([]rune(upMessage)[:300]) + "…"
	}
	switch {
	case ue.StatusCode == 0:
		return "The processor did not answer."
	case ue.StatusCode == http.StatusTooManyRequests:
		return "The processor asked the portal to slow down (HTTP 429)."
	case ue.StatusCode >= 500:
		return fmt.Sprintf("The processor was unavailable (HTTP %d).", ue.StatusCode)
	case ue.StatusCode == http.StatusUnauthorized || ue.StatusCode == http.StatusForbidden:
		return fmt.Sprintf("The processor refused the portal's credentials (HTTP %d). An admin needs to check the upstream settings; then submit again.", ue.StatusCode)
	}
	what := "The processor rejected the application"
	switch step {
	case stepStart:
		what = "The processor refused to start the application"
	case stepLink:
		what = "The processor could not create the merchant's link"
	}
	if upMessage == "" {
		return fmt.Sprintf("%s (HTTP %d).", what, ue.StatusCode)
	}
	return what + ": " + upMessage
}
