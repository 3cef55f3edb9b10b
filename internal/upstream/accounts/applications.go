package accounts

import (
	"context"
	"errors"
	"net/http"
	"net/url"
)

// StartRequest starts an application. Details, when given, travel beside
// the two identifiers at the top level of the body.
type StartRequest struct {
	// ExternalApplicationID is the caller's UUID for the application; a
	// repeated start with the same id returns the same application.
	ExternalApplicationID string
	// PricingCode is the operator-issued code of the pricing model.
	PricingCode string
	// Details pre-fill the application; nil sends none.
	Details *ApplicationData
}

// startBody is the JSON of POST /application/start.
type startBody struct {
	ExternalApplicationID string `json:"externalApplicationId"`
	PricingCode           string `json:"pricingCode"`
	*ApplicationData
}

// StartApplication creates an application and returns its applicationId.
// It is retried on transient failures: the upstream answers a repeat with
// the same externalApplicationId with the same application.
func (c *Client) StartApplication(ctx context.Context, req StartRequest) (string, error) {
	if req.ExternalApplicationID == "" || req.PricingCode == "" {
		return "", errors.New("upstream: start needs an external application id and a pricing code")
	}
	var out struct {
		ApplicationID string `json:"applicationId"`
	}
	err := c.do(ctx, call{
		method: http.MethodPost, path: "/application/start", policy: retrySafe,
		body: startBody{req.ExternalApplicationID, req.PricingCode, req.Details}, out: &out,
	})
	if err != nil {
		return "", err
	}
	if out.ApplicationID == "" {
		return "", &Error{Method: http.MethodPost, Path: "/application/start", StatusCode: http.StatusOK, Message: "answer holds no applicationId"}
	}
	return out.ApplicationID, nil
}

// PatchApplication merges data into the application. The upstream refuses
// it (409) once the link has been generated. Retried on transient failures:
// a merge applied twice is applied once.
func (c *Client) PatchApplication(ctx context.Context, applicationID string, data ApplicationData) error {
	return c.do(ctx, call{
		method: http.MethodPatch, path: applicationPath(applicationID), policy: retrySafe, body: data,
	})
}

// CreateLink generates (or returns the existing) application link with POST,
// the method of the documented flow. Make every PATCH before it.
func (c *Client) CreateLink(ctx context.Context, applicationID string) (string, error) {
	return c.link(ctx, http.MethodPost, applicationID)
}

// GetLink reads the application link with GET.
func (c *Client) GetLink(ctx context.Context, applicationID string) (string, error) {
	return c.link(ctx, http.MethodGet, applicationID)
}

func (c *Client) link(ctx context.Context, method, applicationID string) (string, error) {
	var out struct {
		Link string `json:"link"`
	}
	path := applicationPath(applicationID) + "/link"
	if err := c.do(ctx, call{method: method, path: path, policy: retrySafe, out: &out}); err != nil {
		return "", err
	}
	if out.Link == "" {
		return "", &Error{Method: method, Path: path, StatusCode: http.StatusOK, Message: "answer holds no link"}
	}
	return out.Link, nil
}

// applicationPath is the path of one application.
func applicationPath(id string) string {
	return "/application/" + url.PathEscape(id)
}
