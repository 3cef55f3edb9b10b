package auth

import (
	"net/url"
	"strings"
	"testing"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/validation"
)

// FuzzUserForms checks what the sign-in and new-user forms let through: never a panic, and
// an e-mail address or name they accept is one line of text within its bound, so it can be
// looked up or stored.
func FuzzUserForms(f *testing.F) {
	for _, seed := range []string{
		"email=rep@example.com%00&name=Rep&role=sales_rep",
		"email=" + strings.Repeat("a", 3000) + "@example.com&name=Big&role=admin",
		"email=new@example.com&name=New%00Rep&role=sales_rep",
		"email=%FF@example.com&name=%E9&role=nope",
		"email=a@b.example&name=Line%0Abreak&role=sales_rep&password=short",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		values, err := url.ParseQuery(body)
		if err != nil {
			return
		}
		email := strings.TrimSpace(values.Get("email"))
		if emailProblem(email) == "" && (!validation.IsText(email) || len(email) > 4*MaxEmailLength) {
			t.Fatalf("sign-in would look up %q", email)
		}
		in := NewUser{Email: values.Get("email"), Name: values.Get("name"), Role: models.Role(values.Get("role")), Password: values.Get("password")}
		if errs := in.validate(); len(errs) == 0 {
			if !validation.IsText(in.Email) || !validation.IsText(in.Name) || validation.TooLong(in.Email, MaxEmailLength) || validation.TooLong(in.Name, MaxNameLength) {
				t.Fatalf("accepted user %q %q", in.Email, in.Name)
			}
		}
	})
}
