package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/payportal/portal/internal/app"
	"github.com/payportal/portal/internal/keys"
)

// keysCmd runs `portal keys status|rotate|verify` on the database and key ring of the
// configuration, beside a serving portal.
func (e env) keysCmd(ctx context.Context, args []string) error {
	if len(args) != 1 || !slices.Contains([]string{"status", "rotate", "verify"}, args[0]) {
		return usageError("keys needs: status, rotate or verify")
	}
	cfg, log, db, err := e.load(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	if current, err := db.MigrationsCurrent(ctx); err != nil || !current {
		return errors.Join(errors.New("the database's schema is not current: run `portal migrate up` (or start `portal serve`) first"), err)
	}
	svc, err := app.NewKeys(ctx, cfg, db, log)
	if err != nil {
		return err
	}
	switch args[0] {
	case "status":
		return e.keysStatus(ctx, svc)
	case "rotate":
		return e.keysRotate(ctx, svc)
	default:
		return e.keysVerify(ctx, svc)
	}
}

// keysStatus prints every key the portal has known, with its dates and how many values
// are sealed under it, then what each place holds under each key.
func (e env) keysStatus(ctx context.Context, svc *keys.Service) error {
	known, err := svc.Known(ctx)
	if err != nil {
		return err
	}
	tallies, err := svc.Count(ctx)
	if err != nil {
		return err
	}
	totals := keys.Totals(tallies)
	ring := svc.Ring()
	fmt.Fprintf(e.stdout, "Key ring: %d keys in PORTAL_ENCRYPTION_KEYS, %s active.\n\n", len(ring.KeyIDs()), ring.ActiveKeyID())
	w := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "KEY\tADDED\tFIRST ACTIVE\tNOW\tSEALED UNDER IT")
	var missing []string
	ids := make([]string, 0, len(known))
	for _, k := range known {
		ids = append(ids, k.ID)
		now := "in the ring"
		switch {
		case k.Active:
			now = "active"
		case !k.InRing && k.RemovedAt != nil:
			now = "removed " + day(*k.RemovedAt)
		case !k.InRing:
			now = "NOT IN THE RING"
			if totals[k.ID] > 0 {
				missing = append(missing, k.ID)
			}
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", k.ID, day(k.AddedAt), dayOrNever(k.ActivatedAt), now, number(totals[k.ID]))
	}
	_ = w.Flush()

	fmt.Fprintln(e.stdout, "\nWhat is sealed under each key (documents: files; every other place: values):")
	w = tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "PLACE\t%s\t\n", strings.Join(ids, "\t"))
	for _, t := range tallies {
		cells := make([]string, len(ids))
		for i, id := range ids {
			cells[i] = number(t.ByKey[id])
		}
		fmt.Fprintf(w, "%s\t%s\t\n", t.Place, strings.Join(cells, "\t"))
	}
	_ = w.Flush()
	if n := totals[""]; n > 0 {
		fmt.Fprintf(e.stdout, "\n%s documents were uploaded since the last at-rest pass, which records their key (each start, then daily; `portal keys rotate` runs it too).\n", number(n))
	}
	for _, id := range missing {
		fmt.Fprintf(e.stdout, "\nKey %s holds %s values but is not in PORTAL_ENCRYPTION_KEYS: a portal started with this ring refuses to start. "+
			"Put it back in the ring, run `portal keys rotate`, then remove it.\n", id, number(totals[id]))
	}
	return nil
}

// keysRotate re-seals everything under the active key, printing its progress.
func (e env) keysRotate(ctx context.Context, svc *keys.Service) error {
	active := svc.Ring().ActiveKeyID()
	fmt.Fprintf(e.stdout, "Re-sealing everything under key %s while the portal serves. Stopping is safe at any time: running this again resumes.\n", active)
	start := time.Now()
	p := &progressPrinter{out: e.stdout, every: time.Second}
	done, err := svc.Rotate(ctx, p.print)
	if err != nil {
		return err
	}
	total := 0
	for _, d := range done {
		total += d.Done
	}
	fmt.Fprintf(e.stdout, "Done in %.1f s: %s rows and files re-sealed under %s.\n", time.Since(start).Seconds(), number(total), active)
	tallies, err := svc.Count(ctx)
	if err != nil {
		return err
	}
	for id, n := range keys.Totals(tallies) {
		if id != active && id != "" && n > 0 {
			for _, h := range keys.Holders(tallies, id) {
				fmt.Fprintf(e.stdout, "Still under %s: %s (%s).\n", id, h.Place, number(h.ByKey[id]))
			}
		}
	}
	var old []string
	for _, id := range svc.Ring().KeyIDs() {
		if id != active {
			old = append(old, id)
		}
	}
	if len(old) > 0 {
		fmt.Fprintf(e.stdout, "Once `portal keys status` shows nothing under %s, remove it from PORTAL_ENCRYPTION_KEYS on every replica "+
			"(payment forms opened in the last 12 hours before the switch then ask for a reload).\n", strings.Join(old, ", "))
	}
	return nil
}

// keysVerify reads every sealed value and document back.
func (e env) keysVerify(ctx context.Context, svc *keys.Service) error {
	v, err := svc.Verify(ctx, nil)
	fmt.Fprintf(e.stdout, "Opened %s sealed values and read %s files back", number(v.Values), number(v.Files))
	if v.OlderIndexes > 0 {
		fmt.Fprintf(e.stdout, " (%s blind indexes under older keys are checked after a rotation)", number(v.OlderIndexes))
	}
	if err != nil {
		fmt.Fprintln(e.stdout, ".")
		return err
	}
	fmt.Fprintln(e.stdout, ": every one as stored.")
	return nil
}

// progressPrinter prints a rotation's progress: a line when a place starts, at most one a
// second while it goes, and one when it finishes.
type progressPrinter struct {
	out   io.Writer
	every time.Duration
	place string
	last  time.Time
}

func (p *progressPrinter) print(pr keys.Progress) {
	now := time.Now()
	switch {
	case pr.Place != p.place:
		p.place = pr.Place
		fmt.Fprintf(p.out, "%s: %s to re-seal\n", pr.Place, number(pr.Total))
	case pr.Done >= pr.Total:
		fmt.Fprintf(p.out, "%s: %s of %s re-sealed\n", pr.Place, number(pr.Done), number(pr.Total))
	case now.Sub(p.last) >= p.every:
		fmt.Fprintf(p.out, "%s: %s of %s (%d%%)\n", pr.Place, number(pr.Done), number(pr.Total), 100*pr.Done/max(pr.Total, 1))
	default:
		return
	}
	p.last = now
}

// day writes a time as the status shows it, in UTC.
func day(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }

func dayOrNever(t *time.Time) string {
	if t == nil {
		return "never"
	}
	return day(*t)
}

// number writes a count with thousands separators.
func number(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
