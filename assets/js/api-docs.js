// The partner API's reference pages: Redoc (vendored from npm, served by the portal)
// renders the OpenAPI document into #api-reference. Telemetry is off; the content
// security policy would refuse its requests anyway.
const root = document.getElementById("api-reference");
const { init } = await import(root.dataset.renderer);
init(root.dataset.spec, { disableTelemetry: true, hideDownloadButtons: false }, root);
