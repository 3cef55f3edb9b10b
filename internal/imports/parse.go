package imports

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/payportal/portal/internal/apperr"
)

// FieldFile is the upload form's file input.
const FieldFile = "file"

// fileError refuses a file, with the message beside the file input.
func fileError(format string, args ...any) error {
	return apperr.Invalid(FieldFile, fmt.Sprintf(format, args...))
}

// csvReader reads a CSV file as it arrives: its header, then its rows one at a time,
// each with the number a spreadsheet shows (the header is row 1). Blank rows are skipped.
type csvReader struct {
	r       *csv.Reader
	headers []string
	rows    int
}

// utf8BOM starts files that Excel saves as "CSV UTF-8".
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// newCSVReader reads the header of a file. The separator is a comma, or a semicolon or
// tab when the header holds more of those (spreadsheets in some languages save so).
func newCSVReader(src io.Reader) (*csvReader, error) {
	br := bufio.NewReaderSize(src, 64<<10)
	if bom, _ := br.Peek(3); bytes.Equal(bom, utf8BOM) {
		_, _ = br.Discard(3)
	}
	first, _ := br.Peek(br.Size())
	if i := bytes.IndexByte(first, '\n'); i >= 0 {
		first = first[:i]
	}
	r := csv.NewReader(br)
	r.Comma = separator(first)
	r.FieldsPerRecord = -1 // a row with too many or too few cells is that row's problem
	header, err := r.Read()
	if errors.Is(err, io.EOF) {
		return nil, fileError("The file is empty: it needs a header row naming its columns, then one row per merchant.")
	}
	if err != nil {
		return nil, csvError(err)
	}
	if len(header) > maxColumns {
		return nil, fileError("The file has %d columns; at most %d are read.", len(header), maxColumns)
	}
	c := &csvReader{r: r}
	for i, h := range header {
		if !utf8.ValidString(h) {
			return nil, notUTF8()
		}
		h = strings.TrimSpace(h)
		if h == "" {
			h = "Column " + strconv.Itoa(i+1)
		}
		c.headers = append(c.headers, h)
	}
	return c, nil
}

func separator(header []byte) rune {
	best, n := ',', bytes.Count(header, []byte{','})
	for _, sep := range []rune{';', '\t'} {
		if m := bytes.Count(header, []byte(string(sep))); m > n {
			best, n = sep, m
		}
	}
	return best
}

// next returns the next non-blank row and its number, or io.EOF.
func (c *csvReader) next() (int, []string, error) {
	for {
		cells, err := c.r.Read()
		if errors.Is(err, io.EOF) {
			return 0, nil, io.EOF
		}
		if err != nil {
			return 0, nil, csvError(err)
		}
		line, _ := c.r.FieldPos(0)
		if blank(cells) {
			continue
		}
		c.rows++
		if c.rows > MaxRows {
			return 0, nil, fileError("The file has more than %d rows; split it into files of at most %d rows and import each.", MaxRows, MaxRows)
		}
		for _, cell := range cells {
			if !utf8.ValidString(cell) {
				return 0, nil, notUTF8()
			}
			if len(cell) > maxCellBytes {
				return 0, nil, fileError("Line %d holds a cell of more than %d characters.", line, maxCellBytes)
			}
		}
		return c.rows + 1, cells, nil
	}
}

func blank(cells []string) bool {
	for _, c := range cells {
		if strings.TrimSpace(c) != "" {
			return false
		}
	}
	return true
}

func notUTF8() error {
	return fileError("The file is not UTF-8 text. In your spreadsheet, save it as “CSV UTF-8” and upload it again.")
}

// csvError words an error reading the upload for people.
func csvError(err error) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return fileError("The file is larger than %d MiB; split it and import each part.", MaxFileBytes>>20)
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fileError("The file is not valid CSV at line %d: %s. Save it from your spreadsheet as CSV and upload it again.", pe.StartLine, pe.Err)
	}
	// Anything else reading the body is the upload's fault: it stopped before its end,
	// or the multipart form around it is malformed.
	return apperr.Wrap(apperr.KindInvalid, err, "The upload could not be read to its end. Try again.")
}
