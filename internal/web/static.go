package web

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"

	"github.com/labstack/echo/v4"
)

// Static serves embedded assets at fingerprinted URLs (/assets/<file>?v=<hash>),
// so browsers may cache them for a year and still see every new release.
type Static struct {
	fsys   fs.FS
	hashes map[string]string
}

// NewStatic fingerprints every file in fsys.
func NewStatic(fsys fs.FS) (*Static, error) {
	s := &Static{fsys: fsys, hashes: map[string]string{}}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		s.hashes[p] = hex.EncodeToString(sum[:])[:12]
		return nil
	})
	return s, err
}

// URL returns the fingerprinted URL of an asset, for templates.
func (s *Static) URL(name string) string {
	return "/assets/" + name + "?v=" + s.hashes[name]
}

// Serve answers GET /assets/*.
func (s *Static) Serve(c echo.Context) error {
	return s.serve(c, path.Clean(strings.TrimPrefix(c.Param("*"), "/")))
}

// favicon is the icon browsers and other clients ask for at /favicon.ico when a page
// names none (pages link its fingerprinted URL).
const favicon = "img/favicon.ico"

// Favicon answers GET /favicon.ico with the embedded icon.
func (s *Static) Favicon(c echo.Context) error { return s.serve(c, favicon) }

// serve answers with the asset name: for a year when the URL carries its fingerprint,
// checked again otherwise.
func (s *Static) serve(c echo.Context, name string) error {
	hash, ok := s.hashes[name]
	if !ok || strings.HasSuffix(name, ".md") {
		return echo.NewHTTPError(http.StatusNotFound)
	}
	b, err := fs.ReadFile(s.fsys, name)
	if err != nil {
		return echo.NewHTTPError(http.StatusNotFound)
	}
	h := c.Response().Header()
	if c.QueryParam("v") == hash {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "no-cache")
	}
	h.Set("ETag", `"`+hash+`"`)
	if c.Request().Header.Get("If-None-Match") == `"`+hash+`"` {
		return c.NoContent(http.StatusNotModified)
	}
	ctype := mime.TypeByExtension(path.Ext(name))
	if path.Ext(name) == ".ico" {
		ctype = "image/x-icon" // the type every browser takes; systems' MIME tables differ
	}
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	return c.Blob(http.StatusOK, ctype, b)
}
