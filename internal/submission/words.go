package submission

// The one wording of upstream failures: what the rep reads when the processor
// refused or did not answer, for the push's steps (upstreamWords) and for each
// document (pushReason). Neither ever includes a URL, its signature or personal data.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/payportal/portal/internal/documents"
	upstream "github.com/payportal/portal/internal/upstream/accounts"
)

// upstreamFileTypes maps our document types to the upstream's fileType
// values. The upstream publishes no list; these are the values its sandbox
// accepts. "Articles of incorporation or business licence" is one type for
// us and two for the upstream: it is sent as articlesOfIncorporation, the
// document underwriters ask for first.
var upstreamFileTypes = map[string]string{
	"voided_check":          upstream.FileTypeVoidedCheck,
	"bank_statement":        upstream.FileTypeBankStatement,
	"processing_statement":  upstream.FileTypeProcessingStatement,
	"photo_id":              upstream.FileTypeIdentification,
	"business_registration": upstream.FileTypeArticlesOfIncorporation,
	"tax_document":          upstream.FileTypeTaxDocument,
	"other":                 upstream.FileTypeOther,
}

// UpstreamFileType returns the upstream's fileType for one of our document
// types; an unknown type is sent as "other" rather than refused.
func UpstreamFileType(docType string) string {
	if t, ok := upstreamFileTypes[docType]; ok {
		return t
	}
	return upstream.FileTypeOther
}

// pushReason says in plain words why an attempt failed, for the document
// row and the application page. It never includes a URL or its signature.
func pushReason(err error) string {
	var se *stepError
	errors.As(err, &se)
	var ue *upstream.Error
	hasUE := errors.As(err, &ue)
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return "The upload was interrupted before it finished."
	case errors.Is(err, upstream.ErrPresignedURLExpired), errors.Is(err, errURLExpiredBeforeStart):
		return "The processor's upload link expired before the file could be sent."
	case errors.Is(err, documents.ErrNotFound):
		return "The stored file is missing; upload the document again."
	case errors.Is(err, errSizeMismatch):
		return "The stored file does not match its record; upload the document again."
	case se != nil && se.step == "storage":
		return "The stored file could not be read."
	case se != nil && se.step == "record":
		return "The upload could not be recorded."
	case se != nil && se.step == "metadata":
		return "The processor " + upstreamTrouble(ue, hasUE, "did not answer when asked for an upload link", "refused the file's details")
	case se != nil && se.step == "upload":
		return "The processor's file store " + upstreamTrouble(ue, hasUE, "could not be reached, or the connection broke during the upload", "refused the upload")
	}
	return "The file could not be sent to the processor."
}

// upstreamTrouble words an upstream failure: no answer, unavailable, or a
// refusal with the status and the upstream's own message.
func upstreamTrouble(ue *upstream.Error, ok bool, noAnswer, refused string) string {
	switch {
	case !ok || ue.StatusCode == 0:
		return noAnswer + "."
	case ue.StatusCode == http.StatusTooManyRequests || ue.StatusCode >= 500:
		return fmt.Sprintf("was unavailable (HTTP %d).", ue.StatusCode)
	}
	msg := fmt.Sprintf("%s (HTTP %d", refused, ue.StatusCode)
	if ue.Code != "" {
		msg += " " + ue.Code
	}
	msg += ")"
	if ue.Message != "" {
		msg += ": " + truncate(strings.TrimRight(ue.Message, ". "), 200)
	}
	return msg + "."
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
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
