package accounts

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"time"
)

// appRecord is an application as the store keeps it, one JSON value per
// application in the applications bucket. Data stays raw JSON so numbers
// keep the text the API received.
type appRecord struct {
	ID           string          `json:"id"`
	ExternalID   string          `json:"externalId"`
	PricingCode  string          `json:"pricingCode"`
	Seq          uint64          `json:"seq"`
	Status       Status          `json:"status"`
	Data         json.RawMessage `json:"data"`
	Linked       bool            `json:"linked"`
	Created      time.Time       `json:"created"`
	Updated      time.Time       `json:"updated"`
	Files        []fileRecord    `json:"files"`
	History      []StatusChange  `json:"history"`
	Changes      []DataChange    `json:"changes,omitempty"`
	Pending      *PendingRequest `json:"pending,omitempty"`
	Underwriting *Decision       `json:"underwriting,omitempty"`
	// Announced is set once OnBoarded has been called for the application.
	Announced bool `json:"announced,omitempty"`
}

// fileRecord is one file's metadata and upload.
type fileRecord struct {
	ID            string    `json:"id"`
	FileType      string    `json:"fileType"`
	Name          string    `json:"name"`
	ContentType   string    `json:"contentType"`
	ContentLength int64     `json:"contentLength"`
	Created       time.Time `json:"created"`
	Uploaded      bool      `json:"uploaded"`
	UploadedAt    time.Time `json:"uploadedAt,omitzero"`
	SHA256        string    `json:"sha256,omitempty"`
}

// values decodes the application data, numbers kept as json.Number.
func (a *appRecord) values() map[string]any {
	m := map[string]any{}
	if len(a.Data) == 0 {
		return m
	}
	dec := json.NewDecoder(bytes.NewReader(a.Data))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil || m == nil {
		return map[string]any{}
	}
	return m
}

// setValues stores the application data.
func (a *appRecord) setValues(m map[string]any) {
	a.Data, _ = json.Marshal(m)
}

// file returns the file with the given id.
func (a *appRecord) file(id string) (*fileRecord, bool) {
	for i := range a.Files {
		if a.Files[i].ID == id {
			return &a.Files[i], true
		}
	}
	return nil, false
}

// name is what people call the application: the DBA, else the legal name,
// else a short form of its id.
func (a *appRecord) name() string {
	return nameOf(a.values(), a.ID)
}

func nameOf(data map[string]any, id string) string {
	for _, p := range []string{"business.dba", "legalEntity.name"} {
		if v, ok := getPath(data, p); ok {
			if s, _ := v.(string); strings.TrimSpace(s) != "" {
				return s
			}
		}
	}
	return "Unnamed application " + shortID(id)
}

// shortID is the first block of a UUID, enough to tell applications apart
// on a page.
func shortID(id string) string {
	if i := strings.IndexByte(id, '-'); i > 0 {
		return id[:i]
	}
	return id
}

// snapshot copies a into an Application; base is the public base URL.
func (a *appRecord) snapshot(base string, withData bool) Application {
	out := Application{
		ID: a.ID, ExternalApplicationID: a.ExternalID, Name: a.name(), PricingCode: a.PricingCode,
		Status: a.Status, Linked: a.Linked, Created: a.Created, Updated: a.Updated,
		History: slices.Clone(a.History), Changes: slices.Clone(a.Changes), Files: []File{},
	}
	if out.Changes == nil {
		out.Changes = []DataChange{}
	}
	if a.Pending != nil {
		p := *a.Pending
		out.Pending = &p
	}
	if a.Underwriting != nil {
		d := *a.Underwriting
		out.Underwriting = &d
	}
	if a.Linked {
		out.Link = base + pagePrefix + a.ID
	}
	if withData {
		out.Data = slices.Clone(a.Data)
		if len(out.Data) == 0 {
			out.Data = json.RawMessage("{}")
		}
	}
	for _, f := range a.Files {
		out.Files = append(out.Files, File{
			ID: f.ID, FileType: f.FileType, Name: f.Name, ContentType: f.ContentType,
			ContentLength: f.ContentLength, Uploaded: f.Uploaded, SHA256: f.SHA256, Created: f.Created,
			UploadedAt: f.UploadedAt,
		})
	}
	return out
}
