package app

import "testing"

// An e-mail address breaks after its @ and before its dots, and stays escaped.
func TestAddressBreaksBetweenItsParts(t *testing.T) {
	for in, want := range map[string]string{
		"jordan@cornerbakery.example": "jordan@<wbr>cornerbakery<wbr>.example",
		"a.b<c>@x.io":                 "a<wbr>.b&lt;c&gt;@<wbr>x<wbr>.io",
		"":                            "",
	} {
		if got := string(address(in)); got != want {
			t.Errorf("address(%q) = %q, want %q", in, got, want)
		}
	}
}
