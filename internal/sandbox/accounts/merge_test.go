package accounts

import (
	"encoding/json"
	"testing"
)

func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestMergePatch(t *testing.T) {
	tests := []struct {
		name, dst, patch, want string
	}{
		{"objects merge", `{"business":{"dba":"A"}}`, `{"business":{"phone":"1"}}`, `{"business":{"dba":"A","phone":"1"}}`},
		{"values replace", `{"business":{"dba":"A"}}`, `{"business":{"dba":"B"}}`, `{"business":{"dba":"B"}}`},
		{"null removes", `{"business":{"dba":"A","phone":"1"}}`, `{"business":{"phone":null}}`, `{"business":{"dba":"A"}}`},
		{"lists replace", `{"owners":[{"firstName":"A"},{"firstName":"B"}]}`, `{"owners":[{"firstName":"C","ssn":null}]}`, `{"owners":[{"firstName":"C"}]}`},
		{"new section", `{}`, `{"banking":{"depositAccount":"123"}}`, `{"banking":{"depositAccount":"123"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := decode(t, tt.dst)
			mergePatch(dst, decode(t, tt.patch))
			got, _ := json.Marshal(dst)
			want, _ := json.Marshal(decode(t, tt.want))
			if string(got) != string(want) {
				t.Errorf("got %s, want %s", got, want)
			}
		})
	}
}

func TestPaths(t *testing.T) {
	m := map[string]any{}
	setPath(m, "owners[0].address.city", "Austin")
	setPath(m, "banking.depositRouting", "011401533")
	if v, ok := getPath(m, "owners[0].address.city"); !ok || v != "Austin" {
		t.Errorf("owners[0].address.city = %v, %v", v, ok)
	}
	if _, ok := getPath(m, "owners[1].firstName"); ok {
		t.Error("owners[1] should be missing")
	}
	got, _ := json.Marshal(m)
	if want := `{"banking":{"depositRouting":"011401533"},"owners":[{"address":{"city":"Austin"}}]}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
