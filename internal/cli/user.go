package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/payportal/portal/internal/apperr"
	"github.com/payportal/portal/internal/auth"
	"github.com/payportal/portal/internal/models"
)

func (e env) user(ctx context.Context, args []string) error {
	if len(args) == 0 || args[0] != "create" {
		return usageError("user needs: create --email E --role admin|sales_rep")
	}
	fs := flag.NewFlagSet("user create", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	email := fs.String("email", "", "e-mail address")
	role := fs.String("role", "sales_rep", "admin or sales_rep")
	name := fs.String("name", "", "display name")
	if err := fs.Parse(args[1:]); err != nil {
		return usageError(err.Error())
	}
	_, log, db, err := e.load(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	svc := auth.NewService(db, auth.Options{Log: log})
	u, password, err := svc.CreateUser(ctx, auth.NewUser{Email: *email, Name: *name, Role: models.Role(*role)})
	var verr *apperr.ValidationError
	if errors.As(err, &verr) {
		for field, msg := range verr.Fields {
			fmt.Fprintf(e.stderr, "--%s: %s\n", field, msg)
		}
		return errors.New("user not created")
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "created %s (%s)\ntemporary password: %s\n(it must be changed at first sign-in)\n", u.Email, u.Role.Label(), password)
	return nil
}
