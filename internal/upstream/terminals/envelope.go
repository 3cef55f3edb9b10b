package terminals

import (
	"encoding/json"
	"strings"
)

// envelope is every answer of the cloud: {Success, Status, StatusCode,
// Result} and, on a failure, Error.Message.
type envelope struct {
	Success    flexBool        `json:"Success"`
	Status     string          `json:"Status"`
	StatusCode flexInt         `json:"StatusCode"`
	Result     json.RawMessage `json:"Result"`
	Error      *struct {
		Message string `json:"Message"`
	} `json:"Error"`
	// Message is read too: some answers of the same cloud put the text at
	// the top level.
	Message string `json:"Message"`
}

// pendingStatus is the Status of a result that is not there yet.
const pendingStatus = "pending"

// pending reports an answer that says the cardholder has not finished.
func (e *envelope) pending() bool {
	return !bool(e.Success) && strings.EqualFold(strings.TrimSpace(e.Status), pendingStatus)
}

// message returns the envelope's error text.
func (e *envelope) message() string {
	if e.Error != nil && e.Error.Message != "" {
		return e.Error.Message
	}
	return e.Message
}

// hasResult reports whether Result holds an object.
func (e *envelope) hasResult() bool {
	r := strings.TrimSpace(string(e.Result))
	return r != "" && r != "null"
}

// decodeEnvelope reads a successful answer's envelope.
func decodeEnvelope(body []byte) (*envelope, error) {
	env := &envelope{}
	if err := json.Unmarshal(body, env); err != nil {
		return nil, err
	}
	return env, nil
}
