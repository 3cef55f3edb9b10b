// Package insights is the onboarding funnel as pictures: for the applications created in
// a period, how many reached each step (created, submitted, linked, opened, accepted,
// boarded; declined and withdrawn beside), the median and 90th percentile time between
// steps and from creation to boarding, overall, per rep and per pricing model, and where
// applications stall. Admins see every application; a rep sees their own.
//
// The steps are read from the audit trail (store.go): created, submitted, linked, and
// the processor's states inProgress (opened), processing (accepted), boarded, declined
// and withdrawn. The figures are computed in Go (report.go), the charts drawn on the
// server as SVG with a title and description (chart.go), and the numbers are given
// beside them as tables and as CSV.
package insights
