package accounts

import (
	"net/http"

	"github.com/payportal/portal/internal/sandbox/kit"
)

// apiHandler is an API endpoint: it writes its answer on success and returns
// a *kit.APIError (or another error, answered as 500) on refusal.
type apiHandler func(w http.ResponseWriter, r *http.Request) error

// writeAPIError answers err in the API's error shape (kit.WriteAPIError).
func writeAPIError(w http.ResponseWriter, err error) {
	kit.WriteAPIError(w, err, "sandbox")
}
