package insights_test

import "strconv"

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
