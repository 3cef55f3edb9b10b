package view

import "testing"

func TestLinkifyMakesAddressesLinksAndEscapesTheRest(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"Choose your password here:\n\nhttps://portal.example/invite/abc?x=1&y=2.\n",
			"Choose your password here:\n\n<a href=\"https://portal.example/invite/abc?x=1&amp;y=2\" rel=\"noopener noreferrer\" target=\"_blank\">https://portal.example/invite/abc?x=1&amp;y=2</a>.\n"},
		{"<b>no link</b> & more", "&lt;b&gt;no link&lt;/b&gt; &amp; more"},
		{`(see http://a.example/"onmouseover=x)`, `(see <a href="http://a.example/" rel="noopener noreferrer" target="_blank">http://a.example/</a>&#34;onmouseover=x)`},
		{"javascript:alert(1)", "javascript:alert(1)"},
		{"https://secret-link.invalid/kept-encrypted", "https://secret-link.invalid/kept-encrypted"},
	} {
		if got := string(linkify(c.in)); got != c.want {
			t.Errorf("linkify(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}
