package submission

import (
	"encoding/json"
	"sort"
	"strconv"
	"testing"

	"github.com/payportal/portal/internal/drafts"
	"github.com/payportal/portal/internal/drafts/draftstest"
)

// The upstream mapping and the field registry agree: every field the registry says is sent
// arrives at that place of the upstream's data, and everything in that data comes from a
// registered field or is one of the values the mapping derives.
func TestUpstreamDataFollowsTheRegistry(t *testing.T) {
	d := draftstest.Complete(drafts.EntityLLC)
	d.Owners[0].MiddleName = "Q"
	d.Owners[0].Address.Line2 = "Flat 2"
	d.Owners = append(d.Owners, draftstest.SecondOwner())
	d.Owners[0].OwnershipPct = "60"
	b, err := json.Marshal(UpstreamData(d))
	if err != nil {
		t.Fatal(err)
	}
	var data map[string]any
	if err := json.Unmarshal(b, &data); err != nil {
		t.Fatal(err)
	}
	sent := map[string]bool{}
	for _, name := range d.FieldNames() {
		path := drafts.SentAs(name)
		if path == "" {
			continue
		}
		sent[path] = true
		if v, err := d.Get(name); err != nil || v == "" || v == "false" {
			continue // an empty value is left out of the upstream's data
		}
		if _, ok := leaves(data)[path]; !ok {
			t.Errorf("%s is registered as sent as %s, which the upstream data lacks", name, path)
		}
	}
	// Values the mapping derives rather than copies from one field.
	derived := map[string]bool{
		"business.type": true, "legalEntity.foreign": true,
		"legalEntity.address.line1": true, "legalEntity.address.line2": true, "legalEntity.address.city": true,
		"legalEntity.address.state": true, "legalEntity.address.postalCode": true,
	}
	var unexplained []string
	for path := range leaves(data) {
		if !sent[path] && !derived[path] {
			unexplained = append(unexplained, path)
		}
	}
	sort.Strings(unexplained)
	if len(unexplained) > 0 {
		t.Errorf("sent but in no registry entry: %v", unexplained)
	}
}

// leaves flattens JSON into "a.b.0.c" paths of its non-object values.
func leaves(v any) map[string]any {
	out := map[string]any{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				walk(prefix+k+".", c)
			}
		case []any:
			for i, c := range x {
				walk(prefix+strconv.Itoa(i)+".", c)
			}
		default:
			out[prefix[:len(prefix)-1]] = v
		}
	}
	walk("", v)
	return out
}
