package terminals

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestParseAmount(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Amount
		ok   bool
	}{
		{"12.34", 1234, true}, {"12.3", 1230, true}, {"12", 1200, true}, {"0.01", 1, true}, {" 5.00 ", 500, true},
		{"", 0, false}, {"1.", 0, false}, {".5", 0, false}, {"1.005", 0, false}, {"-1.00", 0, false},
		{"1e2", 0, false}, {"1,000.00", 0, false}, {"12.3a", 0, false},
	} {
		got, err := ParseAmount(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseAmount(%q) = %v, %v; want %v ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
	if s := Amount(1205).String(); s != "12.05" {
		t.Errorf("String = %q", s)
	}
}

func TestAmountJSON(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Amount
		ok   bool
	}{
		{`12.34`, 1234, true}, {`"12.34"`, 1234, true}, {`10.5`, 1050, true}, {`10.500`, 1050, true}, {`0`, 0, true},
		{`null`, 0, true}, {`""`, 0, true}, {`-3.2`, -320, true}, {`12.345`, 0, false}, {`true`, 0, false},
	} {
		var a Amount
		err := json.Unmarshal([]byte(tc.in), &a)
		if (err == nil) != tc.ok || (tc.ok && a != tc.want) {
			t.Errorf("Unmarshal(%s) = %v, %v; want %v ok %v", tc.in, a, err, tc.want, tc.ok)
		}
	}
	raw, _ := json.Marshal(Amount(999))
	if string(raw) != `"9.99"` {
		t.Errorf("Marshal = %s", raw)
	}
}

func TestFlexibleScalars(t *testing.T) {
	var v struct {
		A, B, C, D flexBool
		N, M       flexInt
	}
	if err := json.Unmarshal([]byte(`{"A":"true","B":true,"C":"False","D":null,"N":"5","M":-5}`), &v); err != nil {
		t.Fatal(err)
	}
	if !v.A || !v.B || v.C || v.D || v.N != 5 || v.M != -5 {
		t.Errorf("%+v", v)
	}
	if err := json.Unmarshal([]byte(`{"A":"maybe"}`), &v); err == nil {
		t.Error("a non-boolean was read")
	}
}

func TestCloudDates(t *testing.T) {
	want := time.Date(2017, 11, 14, 22, 11, 50, 933e6, time.UTC)
	for _, in := range []string{`"/Date(1510697510933-0000)/"`, `"/Date(1510697510933+0100)/"`, `"/Date(1510697510933)/"`} {
		var d cloudDate
		if err := json.Unmarshal([]byte(in), &d); err != nil || !time.Time(d).Equal(want) {
			t.Errorf("%s = %v, %v", in, time.Time(d), err)
		}
	}
	var d cloudDate
	if err := json.Unmarshal([]byte(`null`), &d); err != nil || !time.Time(d).IsZero() {
		t.Errorf("null = %v, %v", time.Time(d), err)
	}
	if err := json.Unmarshal([]byte(`"2017-11-14"`), &d); err == nil {
		t.Error("an ISO date was read as /Date()/")
	}
	if s := FormatDate(want); s != "/Date(1510697510933-0000)/" {
		t.Errorf("FormatDate = %s", s)
	}
}

func TestLocalTimestamps(t *testing.T) {
	got, err := parseLocal("2017-11-14T22:11:50.9330000", -5)
	want := time.Date(2017, 11, 15, 3, 11, 50, 933e6, time.UTC)
	if err != nil || !got.Equal(want) {
		t.Errorf("got %v, %v; want %v", got, err, want)
	}
	if got, err := parseLocal("2017-11-14T22:11:50", 2); err != nil || !got.Equal(time.Date(2017, 11, 14, 20, 11, 50, 0, time.UTC)) {
		t.Errorf("without a fraction: %v, %v", got, err)
	}
	if got, err := parseLocal("2017-11-14T22:11:50Z", -5); err != nil || !got.Equal(time.Date(2017, 11, 14, 22, 11, 50, 0, time.UTC)) {
		t.Errorf("with a zone: %v, %v", got, err)
	}
	if _, err := parseLocal("14/11/2017", 0); err == nil {
		t.Error("a foreign form was read")
	}
}

// TestSchedule lists the reads of a transaction that never finishes: every
// second until 30 s, then backing off to 5 s, the last at the deadline.
func TestSchedule(t *testing.T) {
	policy, _ := PollPolicy{}.withDefaults()
	launched := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := schedule{policy: policy, launchedAt: launched}
	var reads []int
	due := s.first(launched)
	for {
		reads = append(reads, int(due.Sub(launched)/time.Second))
		var ok bool
		if due, ok = s.next(due, due); !ok {
			break
		}
	}
	var want []int
	for i := 1; i <= 30; i++ {
		want = append(want, i)
	}
	want = append(want, 32, 36)
	for i := 41; i <= 296; i += 5 {
		want = append(want, i)
	}
	want = append(want, 300)
	if len(reads) != len(want) {
		t.Fatalf("reads at %v\nwant %v", reads, want)
	}
	for i := range want {
		if reads[i] != want[i] {
			t.Fatalf("read %d at %d s, want %d s (all: %v)", i, reads[i], want[i], reads)
		}
	}

	// A read slower than the interval is followed at once; a transaction
	// resumed late is read at once.
	s = schedule{policy: policy, launchedAt: launched}
	s.first(launched)
	start := launched.Add(time.Second)
	if due, _ := s.next(start, start.Add(3*time.Second)); !due.Equal(start.Add(3 * time.Second)) {
		t.Errorf("after a slow read: %v", due)
	}
	late := launched.Add(time.Minute)
	if due := s.first(late); !due.Equal(late) {
		t.Errorf("resumed: %v", due)
	}
}

func TestOutcomeOfMessages(t *testing.T) {
	for msg, want := range map[string]Outcome{
		"DECLINED": OutcomeDeclined, "CANCELLED": OutcomeCancelled, "Aborted by user": OutcomeCancelled,
		"TIMEOUT": OutcomeTimedOut, "Timed out": OutcomeTimedOut, "CARD REMOVED": OutcomeCardRemoved, "DO NOT HONOR": OutcomeDeclined,
	} {
		if got := (&Result{ResultMessage: msg}).Outcome(); got != want {
			t.Errorf("%q = %v, want %v", msg, got, want)
		}
	}
	if got := (&Result{ResultStatus: true, ResultMessage: "whatever"}).Outcome(); got != OutcomeApproved {
		t.Errorf("approved = %v", got)
	}
}

func TestErrorMatching(t *testing.T) {
	for code, want := range map[int]error{
		http.StatusNotFound: ErrNotFound, http.StatusUnauthorized: ErrUnauthorized, http.StatusBadRequest: ErrRejected,
		http.StatusConflict: ErrDeviceBusy, http.StatusServiceUnavailable: ErrUnavailable,
	} {
		e := &Error{Op: "launch", Method: "POST", Path: "/transaction.json", StatusCode: code, Message: "m"}
		if !errors.Is(e, want) || errors.Is(e, ErrOutcomeUnknown) {
			t.Errorf("%d does not match %v alone", code, want)
		}
	}
	e := &Error{Op: "launch", StatusCode: 502, Unknown: true}
	if !errors.Is(e, ErrOutcomeUnknown) || !strings.Contains(e.Error(), "outcome unknown") {
		t.Errorf("unknown: %v", e)
	}
	if !IsTemporary(&Error{StatusCode: 503}) || IsTemporary(&Error{StatusCode: 404}) || IsTemporary(errors.New("x")) {
		t.Error("IsTemporary")
	}
}

func TestManualClock(t *testing.T) {
	c := NewManualClock(time.Unix(0, 0))
	a := c.NewTimerAt(c.Now().Add(2 * time.Second))
	b := c.NewTimerAt(c.Now().Add(time.Second))
	now := c.NewTimerAt(c.Now())
	if c.Timers() != 2 {
		t.Fatalf("timers = %d", c.Timers())
	}
	select {
	case <-now.C():
	default:
		t.Error("a timer due now did not fire")
	}
	c.Advance(time.Second)
	select {
	case <-b.C():
	default:
		t.Error("b did not fire")
	}
	if !a.Stop() || a.Stop() || c.Timers() != 0 {
		t.Error("stop")
	}
}
