package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"github.com/payportal/portal/internal/apikeys"
	"github.com/payportal/portal/internal/config"
	"github.com/payportal/portal/internal/database"
	"github.com/payportal/portal/internal/fieldcrypt"
	"github.com/payportal/portal/internal/jobs"
	"github.com/payportal/portal/internal/partnerapi"
	"github.com/payportal/portal/internal/view"
	"github.com/payportal/portal/internal/web"
)

// apiParts are what the partner API is built from besides the rooms it calls.
type apiParts struct {
	Config *config.Config
	DB     *database.DB
	Ring   *fieldcrypt.KeyRing
	Queue  *jobs.Queue
	Views  *view.Renderer
	Static *web.Static
	Rooms  partnerapi.Deps
	Now    func() time.Time
	Log    *slog.Logger
}

// apiSurface is the partner API: its keys, its handlers and what they share.
type apiSurface struct {
	Keys        *apikeys.Service
	KeyHandlers *apikeys.Handlers
	Guard       *partnerapi.Guard
	Handlers    *partnerapi.Handlers
	Docs        *partnerapi.Docs
}

// wireAPI builds the partner API and registers the pruning of its idempotency keys and
// rate windows.
func wireAPI(p apiParts) (*apiSurface, error) {
	keys := apikeys.NewService(apikeys.NewStore(p.DB.Pool), apikeys.Options{Now: p.Now, Log: p.Log.With("component", "apikeys")})
	guard := partnerapi.NewGuard(p.DB.Pool, p.Ring, p.Config.API.RateLimit, p.Now)
	docs, err := partnerapi.NewDocs(p.Static.URL)
	if err != nil {
		return nil, err
	}
	rooms := p.Rooms
	rooms.Now, rooms.Log = p.Now, p.Log.With("component", "api")
	jobs.Register(p.Queue, &pruneAPIWorker{guard: guard})
	p.Queue.AddPeriodic(river.NewPeriodicJob(river.PeriodicInterval(time.Hour),
		func() (river.JobArgs, *river.InsertOpts) { return pruneAPIArgs{}, nil },
		&river.PeriodicJobOpts{RunOnStart: true}))
	return &apiSurface{Keys: keys, KeyHandlers: apikeys.NewHandlers(keys, p.Views), Guard: guard,
		Handlers: partnerapi.NewHandlers(rooms), Docs: docs}, nil
}

// pruneAPIArgs is the hourly job that deletes expired idempotency keys and old rate
// windows.
type pruneAPIArgs struct{}

// Kind names the job for River.
func (pruneAPIArgs) Kind() string { return "api_prune" }

type pruneAPIWorker struct {
	river.WorkerDefaults[pruneAPIArgs]
	guard *partnerapi.Guard
}

// Work prunes; running it twice is harmless.
func (w *pruneAPIWorker) Work(ctx context.Context, _ *river.Job[pruneAPIArgs]) error {
	_, err := w.guard.Prune(ctx)
	return err
}
