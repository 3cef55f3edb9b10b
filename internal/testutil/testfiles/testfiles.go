// Package testfiles makes the files tests upload: a minimal PDF, and PDF-looking
// bodies of any size.
package testfiles

import "math/rand/v2"

// SamplePDF is the smallest file the portal accepts as a PDF.
var SamplePDF = []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n")

// PDF returns a PDF-looking body of n pseudo-random bytes, the same for the same seed.
func PDF(n int, seed uint64) []byte {
	b := make([]byte, n)
	r := rand.New(rand.NewPCG(seed, seed))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	copy(b, SamplePDF)
	return b
}
