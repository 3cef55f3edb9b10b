package reminders

import (
	"strconv"
	"time"
)

func itoa(n int) string { return strconv.Itoa(n) }

func weekdayName(d int) string { return time.Weekday(d).String() }
