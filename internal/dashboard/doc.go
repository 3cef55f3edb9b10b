// Package dashboard is the list of applications: search, filters, sorting and keyset
// pagination over a read model built for speed (see BENCHMARKS.md). It reads; the
// applications store writes.
package dashboard
