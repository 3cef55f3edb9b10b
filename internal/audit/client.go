package audit

import "context"

// clientAddressKey keys the request's client address in a context.
type clientAddressKey struct{}

// WithClientAddress returns ctx carrying addr, the address of the client whose request
// is being served. The web layer sets it on every request, so that every entry a
// request makes records where it came from without each use case passing it on.
func WithClientAddress(ctx context.Context, addr string) context.Context {
	return context.WithValue(ctx, clientAddressKey{}, addr)
}

// ClientAddressOf returns the client address ctx carries, "" for none (a job, the CLI).
func ClientAddressOf(ctx context.Context) string {
	addr, _ := ctx.Value(clientAddressKey{}).(string)
	return addr
}
