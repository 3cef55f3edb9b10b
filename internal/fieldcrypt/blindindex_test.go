package fieldcrypt

import (
	"slices"
	"strings"
	"testing"
)

func TestBlindIndexIsKeyedDeterministicAndPerPurpose(t *testing.T) {
	r := mustRing(t, "k1", map[string][]byte{"k1": key(1)})
	a, b := r.BlindIndex("tin", "123456789"), r.BlindIndex("tin", "123456789")
	if a != b || !strings.HasPrefix(a, "k1:") || strings.Contains(a, "6789") {
		t.Fatalf("index %q, again %q", a, b)
	}
	if r.BlindIndex("tin", "123456788") == a {
		t.Error("two values share an index")
	}
	if r.BlindIndex("ssn", "123456789") == a {
		t.Error("an index of one purpose matches another purpose")
	}
	other := mustRing(t, "k1", map[string][]byte{"k1": key(2)})
	if other.BlindIndex("tin", "123456789") == a {
		t.Error("another key gives the same index")
	}
	if r.BlindIndex("tin", "") != "" || r.BlindIndexes("tin", "") != nil {
		t.Error("an empty value has an index")
	}
}

func TestBlindIndexesFindValuesIndexedBeforeARotation(t *testing.T) {
	old := mustRing(t, "k1", map[string][]byte{"k1": key(1)})
	stored := old.BlindIndex("tin", "123456789")
	rotated := mustRing(t, "k2", map[string][]byte{"k1": key(1), "k2": key(2)})
	all := rotated.BlindIndexes("tin", "123456789")
	if len(all) != 2 || !strings.HasPrefix(all[0], "k2:") || !slices.Contains(all, stored) {
		t.Fatalf("indexes %v do not include the stored %q, active first", all, stored)
	}
	if !rotated.IndexNeedsRotation(stored) || rotated.IndexNeedsRotation(all[0]) || rotated.IndexNeedsRotation("") {
		t.Error("IndexNeedsRotation is wrong")
	}
	if !rotated.IndexNeedsRotation("garbage") {
		t.Error("a value that is no index should be recomputed")
	}
}
