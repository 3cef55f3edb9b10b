package insights

import (
	"fmt"
	"html"
	"html/template"
	"strings"
	"time"
)

// The charts are SVG drawn here, with no script and no library: each has a title and a
// description that says what it shows in words (role="img"), and the same numbers are
// in a table beside it. They scale to the width of the page (viewBox), so they never
// make it scroll sideways. Colours are presentation attributes, which the page's
// Content-Security-Policy allows (it forbids inline styles).
const (
	chartWidth = 400
	labelWidth = 92
	barMax     = 220
	rowHeight  = 30
	barHeight  = 18
	textColour = "#1f2933"
	pathColour = "#1d4ed8"
	exitColour = "#b42318"
	p90Colour  = "#52606d"
)

// FunnelChart draws how many applications reached each step, as horizontal bars.
func FunnelChart(r Report) template.HTML {
	rows := append(append([]StepCount{}, r.Funnel...), r.Exits...)
	most := 1
	for _, s := range rows {
		most = max(most, s.Count)
	}
	var desc []string
	var b strings.Builder
	height := len(rows)*rowHeight + 8
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %d %d" role="img" aria-labelledby="funnel-chart-title funnel-chart-desc" xmlns="http://www.w3.org/2000/svg" font-size="13" font-family="system-ui, sans-serif">`, chartWidth, height)
	b.WriteString(`<title id="funnel-chart-title">Applications reaching each step</title>`)
	for i, s := range rows {
		y := i*rowHeight + 6
		colour := pathColour
		if s.Step == StepDeclined || s.Step == StepWithdrawn {
			colour = exitColour
		}
		w := barMax * s.Count / most
		fmt.Fprintf(&b, `<text x="0" y="%d" fill="%s">%s</text>`, y+barHeight-4, textColour, esc(s.Step.Title()))
		if w > 0 {
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s"/>`, labelWidth, y, w, barHeight, colour)
		}
		label := fmt.Sprintf("%d (%s%%)", s.Count, formatFloat(s.Share, 0))
		fmt.Fprintf(&b, `<text x="%d" y="%d" fill="%s">%s</text>`, labelWidth+w+6, y+barHeight-4, textColour, esc(label))
		desc = append(desc, s.Step.Title()+" "+label)
	}
	fmt.Fprintf(&b, `<desc id="funnel-chart-desc">%s.</desc></svg>`, esc(strings.Join(desc, ", ")))
	return template.HTML(b.String()) //nolint:gosec // every text in it is escaped above
}

// TimesChart draws the median time of each transition as a bar and its 90th percentile
// as a thinner line beyond it.
func TimesChart(g Group) template.HTML {
	var most time.Duration
	for _, t := range g.Times {
		most = max(most, t.P90)
	}
	if most == 0 {
		most = 1
	}
	scale := func(d time.Duration) int { return int(float64(barMax+labelWidth-8) * float64(d) / float64(most)) }
	const row = 44
	var desc []string
	var b strings.Builder
	height := len(g.Times)*row + 8
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %d %d" role="img" aria-labelledby="times-chart-title times-chart-desc" xmlns="http://www.w3.org/2000/svg" font-size="13" font-family="system-ui, sans-serif">`, chartWidth, height)
	b.WriteString(`<title id="times-chart-title">Time between steps: median (bar) and 90th percentile (line)</title>`)
	for i, t := range g.Times {
		y := i*row + 4
		text := t.Transition.Title() + ": no application went through this yet"
		if t.N > 0 {
			text = fmt.Sprintf("%s: median %s, 90%% within %s (%d)", t.Transition.Title(), Words(t.Median), Words(t.P90), t.N)
		}
		fmt.Fprintf(&b, `<text x="0" y="%d" fill="%s">%s</text>`, y+12, textColour, esc(text))
		if t.N > 0 {
			fmt.Fprintf(&b, `<line x1="0" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"/>`, y+26, max(scale(t.P90), 2), y+26, p90Colour)
			fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"/>`, max(scale(t.P90), 2), y+19, max(scale(t.P90), 2), y+33, p90Colour)
			fmt.Fprintf(&b, `<rect x="0" y="%d" width="%d" height="14" fill="%s"/>`, y+19, max(scale(t.Median), 2), pathColour)
		}
		desc = append(desc, text)
	}
	fmt.Fprintf(&b, `<desc id="times-chart-desc">%s.</desc></svg>`, esc(strings.Join(desc, "; ")))
	return template.HTML(b.String()) //nolint:gosec // every text in it is escaped above
}

func esc(s string) string { return html.EscapeString(s) }
