package cli

import (
	"context"
	"errors"
)

func (e env) sandbox(ctx context.Context) error {
	return errors.New("the standalone sandbox is not wired yet")
}
