package accounts

import (
	"embed"
	"html/template"
	"net/http"

	"github.com/payportal/portal/internal/sandbox/kit"
)

//go:embed templates/*.html
var templateFS embed.FS

// Mount adds the area's routes to mux. Reading it gives the area's site map.
func (s *Server) Mount(mux *http.ServeMux) {
	api := s.opts.BasePath
	guard, sameOrigin := s.env.Admin.Wrap, func(h http.HandlerFunc) http.HandlerFunc { return kit.SameOrigin(s.env.PublicURL, h) }

	// The account application API: bearer token except /auth; faults apply.
	mux.Handle("POST "+api+"/auth", s.apiRoute(s.handleAuth, false))
	mux.Handle("POST "+api+"/application/start", s.apiRoute(s.handleStart, true))
	mux.Handle("PATCH "+api+"/application/{applicationId}", s.apiRoute(s.handlePatch, true))
	mux.Handle("POST "+api+"/application/{applicationId}/file", s.apiRoute(s.handleCreateFile, true))
	mux.Handle("GET "+api+"/application/{applicationId}/file/{fileId}", s.apiRoute(s.handleGetFile, true))
	mux.Handle("GET "+api+"/application/{applicationId}/link", s.apiRoute(s.handleLink, true))
	mux.Handle("POST "+api+"/application/{applicationId}/link", s.apiRoute(s.handleLink, true))

	// Object store: presigned PUT only; faults apply.
	mux.Handle("PUT "+storePrefix+"{applicationId}/{fileId}", s.storeFaults(http.HandlerFunc(s.handlePutObject)))

	// Merchant pages behind the application link: no login, the link is the key.
	mux.HandleFunc("GET "+pagePrefix+"{applicationId}", s.handleDetailsPage)
	mux.HandleFunc("POST "+pagePrefix+"{applicationId}", sameOrigin(s.handleDetailsSubmit))
	mux.HandleFunc("GET "+pagePrefix+"{applicationId}/edit/{section}", s.handleEditPage)
	mux.HandleFunc("POST "+pagePrefix+"{applicationId}/edit/{section}", sameOrigin(s.handleEditSubmit))
	mux.HandleFunc("GET "+pagePrefix+"{applicationId}/bank-link", s.handleBankLinkStart)
	mux.HandleFunc("POST "+pagePrefix+"{applicationId}/bank-link", sameOrigin(s.handleBankLinkChoose))
	mux.HandleFunc("POST "+pagePrefix+"{applicationId}/bank-link/{institution}", sameOrigin(s.handleBankLinkLogin))
	mux.HandleFunc("POST "+pagePrefix+"{applicationId}/bank-link/{institution}/account", sameOrigin(s.handleBankLinkAccount))
	mux.HandleFunc("GET "+pagePrefix+"{applicationId}/terms", s.handleTermsPage)
	mux.HandleFunc("POST "+pagePrefix+"{applicationId}/terms", sameOrigin(s.handleTermsSubmit))
	mux.HandleFunc("GET "+pagePrefix+"{applicationId}/done", s.handleDonePage)

	// Admin page and forms: admin token on every route.
	mux.HandleFunc("GET "+adminPath, guard(s.handleAdminPage))
	mux.HandleFunc("GET "+adminPath+"/applications/{applicationId}", guard(s.handleAdminAppPage))
	mux.HandleFunc("POST "+adminPath+"/applications/{applicationId}/status", guard(sameOrigin(s.handleAdminStatusForm)))
	mux.HandleFunc("POST "+adminPath+"/pricing-codes", guard(sameOrigin(s.handleAdminIssueForm)))
	mux.HandleFunc("POST "+adminPath+"/pricing-codes/withdraw", guard(sameOrigin(s.handleAdminWithdrawForm)))
	mux.HandleFunc("POST "+adminPath+"/settings", guard(sameOrigin(s.handleAdminSettingsForm)))

	// Admin JSON.
	mux.HandleFunc("GET "+adminAPI+"/applications", guard(s.handleAdminListJSON))
	mux.HandleFunc("GET "+adminAPI+"/applications/{applicationId}", guard(s.handleAdminGetJSON))
	mux.HandleFunc("POST "+adminAPI+"/applications/{applicationId}/status", guard(s.handleAdminStatusJSON))
	mux.HandleFunc("GET "+adminAPI+"/pricing-codes", guard(s.handleCodesJSON))
	mux.HandleFunc("POST "+adminAPI+"/pricing-codes", guard(s.handleIssueCodeJSON))
	mux.HandleFunc("DELETE "+adminAPI+"/pricing-codes/{code}", guard(s.handleWithdrawCodeJSON))
	mux.HandleFunc("GET "+adminAPI+"/webhooks", guard(s.handleWebhooksJSON))
	mux.HandleFunc("GET "+adminAPI+"/settings", guard(s.handleSettingsGetJSON))
	mux.HandleFunc("PUT "+adminAPI+"/settings", guard(s.handleSettingsPutJSON))
}

// parsePages parses the merchant pages and the admin pages once, so a
// broken template fails the start.
func parsePages() (*kit.Pages, *kit.Pages, error) {
	funcs := template.FuncMap{"fieldID": fieldID}
	merchant, err := kit.NewPages(kit.PageSet{
		Product: "Account application", Banner: "a rehearsal of the merchant account application. Nothing here opens a real account.",
		Files: templateFS, Names: []string{"details", "edit", "banklink", "terms", "done"}, Partials: []string{"partials"}, Funcs: funcs,
	})
	if err != nil {
		return nil, nil, err
	}
	admin, err := kit.NewPages(kit.PageSet{
		Product: "Account application", Banner: "the operator's back office, for rehearsals.", Admin: true,
		Files: templateFS, Names: []string{"admin", "admin_app"}, Partials: []string{"partials"}, Funcs: funcs,
	})
	return merchant, admin, err
}
