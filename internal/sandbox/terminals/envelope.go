package terminals

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/payportal/portal/internal/sandbox/kit"
)

// envelope is every answer of the cloud: {Success, Status, StatusCode,
// Result}, with Error.Message on a failure.
type envelope struct {
	Success    bool      `json:"Success"`
	Status     string    `json:"Status"`
	StatusCode int       `json:"StatusCode"`
	Result     any       `json:"Result,omitempty"`
	Error      *envError `json:"Error,omitempty"`
}

type envError struct {
	Message string `json:"Message"`
}

// statusNames are the envelope's Status texts: the names .NET gives HTTP
// statuses, as in the documented {"Status": "InternalServerError"}.
var statusNames = map[int]string{
	http.StatusOK:                    "Success",
	http.StatusBadRequest:            "BadRequest",
	http.StatusUnauthorized:          "Unauthorized",
	http.StatusNotFound:              "NotFound",
	http.StatusConflict:              "Conflict",
	http.StatusRequestEntityTooLarge: "RequestEntityTooLarge",
	http.StatusUnsupportedMediaType:  "UnsupportedMediaType",
	http.StatusTooManyRequests:       "TooManyRequests",
	http.StatusInternalServerError:   "InternalServerError",
	http.StatusBadGateway:            "BadGateway",
	http.StatusServiceUnavailable:    "ServiceUnavailable",
	http.StatusGatewayTimeout:        "GatewayTimeout",
}

// statusName returns the Status text of code.
func statusName(code int) string {
	if n, ok := statusNames[code]; ok {
		return n
	}
	return strconv.Itoa(code)
}

// writeOK answers 200 with result in a successful envelope.
func writeOK(w http.ResponseWriter, result any) {
	kit.WriteJSON(w, http.StatusOK, envelope{Success: true, Status: statusName(http.StatusOK), StatusCode: http.StatusOK, Result: result})
}

// writePending answers a result that is not there yet: HTTP 200, Success
// false, Status "Pending".
func writePending(w http.ResponseWriter) {
	w.Header().Set("Cache-Control", "no-store")
	kit.WriteJSON(w, http.StatusOK, envelope{Status: "Pending", StatusCode: http.StatusOK})
}

// writeError answers code with an error envelope.
func writeError(w http.ResponseWriter, code int, format string, args ...any) {
	kit.WriteJSON(w, code, envelope{Status: statusName(code), StatusCode: code, Error: &envError{Message: fmt.Sprintf(format, args...)}})
}

// writeBodyError answers a body the kit refused (a *kit.BodyError) in the
// error envelope, worded as the cloud's other messages are: a sentence.
func writeBodyError(w http.ResponseWriter, err error) {
	be := &kit.BodyError{Status: http.StatusBadRequest, Message: "the request body could not be read"}
	errors.As(err, &be)
	msg := strings.ToUpper(be.Message[:1]) + be.Message[1:] + "."
	writeError(w, be.Status, "%s", msg)
}

// injectedStatuses are the statuses of injected cloud errors.
var injectedStatuses = []int{http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout}

// cloud applies the injected faults to a cloud route. A fault strikes
// before the handler acts, except "act then drop", which lets a launch
// happen and then closes the connection: the client cannot know. Reads
// treat it as a plain drop.
func (a *Area) cloud(next http.HandlerFunc, acts bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		d := a.env.Faults.Decide(faultArea)
		if !d.Wait(r) {
			return
		}
		switch d.Kind {
		case kit.FaultDrop:
			kit.Drop()
		case kit.FaultActThenDrop:
			if acts {
				next(kit.Discard{}, r)
			}
			kit.Drop()
		case kit.FaultError:
			code := d.Status
			if code == 0 {
				code = a.env.Faults.Pick(injectedStatuses)
			}
			if code == http.StatusTooManyRequests || code == http.StatusServiceUnavailable {
				secs := max(d.RetryAfter.Round(time.Second), time.Second) / time.Second
				w.Header().Set("Retry-After", strconv.Itoa(int(secs)))
			}
			writeError(w, code, "%s (injected fault)", http.StatusText(code))
			return
		}
		next(w, r)
	}
}
