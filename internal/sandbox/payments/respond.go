package payments

import (
	"encoding/json"
	"net/http"

	"github.com/payportal/portal/internal/sandbox/kit"
)

// writeError answers err in the API's error shape (kit.WriteAPIError).
func writeError(w http.ResponseWriter, err error) {
	kit.WriteAPIError(w, err, "virtualterminal")
}

// envelope wraps an answer as the API sends it.
type envelope struct {
	TransactionResponse answer `json:"transactionResponse"`
}

// encodeAnswer renders an answer's body.
func encodeAnswer(a answer) []byte {
	raw, _ := json.Marshal(envelope{TransactionResponse: a})
	return append(raw, '\n')
}
