package audit

import "encoding/json"

// The actions of a webhook endpoint, on the trail of the API key it belongs to (an
// endpoint hears what its key may see, so the key's trail tells its whole story).
const (
	// ActionWebhookEndpointCreated: an admin registered an endpoint (its secret was shown once).
	ActionWebhookEndpointCreated = "webhook_endpoint_created"
	// ActionWebhookEndpointChanged: an admin changed the events it receives.
	ActionWebhookEndpointChanged = "webhook_endpoint_changed"
	// ActionWebhookSecretRotated: an admin drew a new signing secret; the old one signs
	// beside it for a day.
	ActionWebhookSecretRotated = "webhook_secret_rotated"
	// ActionWebhookEndpointDisabled and Enabled: an admin stopped or restarted its
	// deliveries; with no actor, the portal disabled it after three days of failures.
	ActionWebhookEndpointDisabled = "webhook_endpoint_disabled"
	ActionWebhookEndpointEnabled  = "webhook_endpoint_enabled"
	// ActionWebhookEndpointDeleted: an admin deleted it with its delivery log.
	ActionWebhookEndpointDeleted = "webhook_endpoint_deleted"
)

// WebhookDetails is what an endpoint's entries keep: which endpoint, its address and
// events; never its secret.
type WebhookDetails struct {
	EndpointID string   `json:"endpoint_id"`
	URL        string   `json:"url"`
	Events     []string `json:"events,omitempty"`
}

// describeWebhookEvent words an endpoint's entry.
func describeWebhookEvent(action string, raw []byte) (string, bool) {
	var d WebhookDetails
	_ = json.Unmarshal(raw, &d)
	switch action {
	case ActionWebhookEndpointCreated:
		return "registered the webhook endpoint " + d.URL, true
	case ActionWebhookEndpointChanged:
		return "changed the events of the webhook endpoint " + d.URL, true
	case ActionWebhookSecretRotated:
		return "rotated the signing secret of the webhook endpoint " + d.URL, true
	case ActionWebhookEndpointDisabled:
		return "disabled the webhook endpoint " + d.URL, true
	case ActionWebhookEndpointEnabled:
		return "enabled the webhook endpoint " + d.URL, true
	case ActionWebhookEndpointDeleted:
		return "deleted the webhook endpoint " + d.URL, true
	}
	return "", false
}
