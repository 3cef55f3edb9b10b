package transport

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"net/http"
)

// Refusal is what an answer outside 2xx says, read from whichever of the
// processor's error shapes its body has:
//
//	{"message": "...", "field": "..."}                  the account and payment APIs
//	{"error": "..."}                                    the same, from older gateways
//	{"Status": "...", "Error": {"Message": "..."}}      the terminal cloud's envelope
//	<Error><Code>...</Code><Message>...</Message></Error>  the object store (S3)
//	a short plain-text body                             a proxy in between
//
// It keeps only these texts, never the body itself.
type Refusal struct {
	// Message is the upstream's words, or the status text when it gave none.
	Message string
	// Field names the field at fault, when the upstream names one.
	Field string
	// Code is the object store's error code, e.g. AccessDenied.
	Code string
	// Status is the terminal cloud envelope's Status, e.g. "Conflict".
	Status string
}

// maxPlainText bounds the plain-text message kept from a body.
const maxPlainText = 200

// Refusal reads a's body as a refusal.
func (a Answer) Refusal() Refusal {
	raw := bytes.TrimSpace(a.Body)
	r := Refusal{}
	var j struct {
		Message string          `json:"message"`
		Field   string          `json:"field"`
		Status  string          `json:"Status"`
		Error   json.RawMessage `json:"error"` // a string, or the envelope's {"Message": "..."}
	}
	var x struct {
		Code    string `xml:"Code"`
		Message string `xml:"Message"`
	}
	switch {
	case json.Unmarshal(raw, &j) == nil && len(raw) > 0 && raw[0] == '{':
		r.Field, r.Status = j.Field, j.Status
		r.Message = errorText(j.Error, j.Message)
	case bytes.HasPrefix(raw, []byte("<")) && xml.Unmarshal(raw, &x) == nil && x.Code != "":
		r.Code, r.Message = x.Code, x.Message
	case len(raw) > 0 && !bytes.HasPrefix(raw, []byte("<")):
		r.Message = string(raw[:min(len(raw), maxPlainText)])
	}
	if r.Message == "" {
		r.Message = http.StatusText(a.Status)
	}
	return r
}

// errorText chooses the message: the envelope's Error.Message, else the
// top-level message, else an "error" string.
func errorText(raw json.RawMessage, message string) string {
	var o struct {
		Message string `json:"Message"`
	}
	if json.Unmarshal(raw, &o) == nil && o.Message != "" {
		return o.Message
	}
	var s string
	if message == "" && json.Unmarshal(raw, &s) == nil {
		return s
	}
	return message
}
