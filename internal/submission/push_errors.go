package submission

import (
	"context"
	"errors"

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
	// kind marks a stop that needs more than words (applications.ErrorKind*).
	kind string
	err  error
}

func (e *pushError) Error() string { return "push step " + e.step + ": " + e.err.Error() }
func (e *pushError) Unwrap() error { return e.err }

// errNoUpstream: the portal was started without an upstream connection.
var errNoUpstream = errors.New("submission: no upstream client configured")

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
