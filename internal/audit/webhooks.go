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

// webhookSentences are the endpoints' rows of the table of sentences.
func webhookSentences() map[string]sentence {
	endpoint := func(verb string) func(e *entry) string {
		return func(e *entry) string {
			var d WebhookDetails
			_ = json.Unmarshal(e.Details, &d) // unknown or empty details just show less
			if d.URL == "" {
				return verb + " a webhook endpoint"
			}
			return verb + " the webhook endpoint " + d.URL
		}
	}
	return map[string]sentence{
		ActionWebhookEndpointCreated:  {did: endpoint("registered")},
		ActionWebhookEndpointChanged:  {did: endpoint("changed the events of")},
		ActionWebhookSecretRotated:    {did: endpoint("rotated the signing secret of")},
		ActionWebhookEndpointDisabled: {did: endpoint("disabled")},
		ActionWebhookEndpointEnabled:  {did: endpoint("enabled")},
		ActionWebhookEndpointDeleted:  {did: endpoint("deleted")},
	}
}
