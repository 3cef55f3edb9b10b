package deploytest_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil"
	"github.com/payportal/portal/internal/testutil/s3server"
	"github.com/payportal/portal/internal/testutil/testdb"
)

// ImageVar names the image to test; `make test` builds it
// (scripts/build-image.sh) and sets it.
const ImageVar = "PORTAL_TEST_IMAGE"

// TestImageServesThePortal starts the image as an operator would, against the
// test database with S3 storage (versitygw), and checks that it becomes ready,
// that the sign-in page and every asset it references (and every vendored file
// of assets/vendor.list) answer 200, that a document uploads (it is spooled in
// /tmp on its way to S3), and that the process does not run as root.
func TestImageServesThePortal(t *testing.T) {
	t.Parallel()
	image := os.Getenv(ImageVar)
	if image == "" {
		t.Fatalf("%s is not set: run the tests with `make test`, which builds the image", ImageVar)
	}
	_, dbURL := testdb.NewEmpty(t)
	s3 := s3server.Start(t)
	vars := map[string]string{
		"PORTAL_DATABASE_URL":    dbURL,
		"PORTAL_ENCRYPTION_KEYS": keyRing(t),
		"PORTAL_STORAGE":         "s3", "PORTAL_S3_ENDPOINT": s3.Endpoint, "PORTAL_S3_REGION": s3.Region,
		"PORTAL_S3_BUCKET": s3.Bucket, "PORTAL_S3_ACCESS_KEY_ID": s3.AccessKeyID,
		"PORTAL_S3_SECRET_ACCESS_KEY": s3.SecretAccessKey, "PORTAL_S3_PATH_STYLE": "true",
	}
	ctr, base := startContainer(t, image, vars)

	uid := ctr.processUID(t)
	if uid == "0" || uid == "" {
		t.Errorf("the portal runs as uid %q in the image", uid)
	}
	c := newClient(base, "")
	login := c.get("/login")
	if login.Status != http.StatusOK {
		t.Fatalf("/login: %d %v", login.Status, login.Err)
	}
	assets := regexp.MustCompile(`(?:src|href)="(/assets/[^"]+)"`).FindAllStringSubmatch(login.Body, -1)
	if len(assets) < 3 {
		t.Fatalf("the sign-in page references %d assets", len(assets))
	}
	paths := map[string]bool{}
	for _, m := range assets {
		paths[m[1]] = true
	}
	for _, name := range vendored(t) {
		paths["/assets/vendor/"+name] = true
	}
	for p := range paths {
		if res := c.get(p); res.Status != http.StatusOK || len(res.Body) == 0 {
			t.Errorf("%s: %d (%d bytes)", p, res.Status, len(res.Body))
		}
	}

	a := inProcess(t, vars, dbURL)
	_, password := createUser(t, a, "rep@example.com", models.RoleSalesRep)
	c.signIn(t, "rep@example.com", password)
	created := c.postForm("/applications", nil)
	if created.Status != http.StatusSeeOther || !strings.HasPrefix(created.Location, "/applications/") {
		t.Fatalf("new application: %d %q", created.Status, created.Location)
	}
	c.get(created.Location)
	pdf := samplePDF(t)
	if res := uploadDocument(t, c, created.Location, pdf); res.Status != http.StatusSeeOther {
		t.Fatalf("upload: %d %v\n%s\ncontainer log:\n%s", res.Status, res.Err, res.Body, ctr.logs())
	}
	list := c.get(created.Location + "/documents/list")
	if !strings.Contains(list.Body, "statement.pdf") {
		t.Fatalf("the uploaded document is not listed: %d\n%s", list.Status, list.Body)
	}
	id := regexp.MustCompile(`/documents/([0-9a-f-]{36})/download`).FindStringSubmatch(list.Body)
	if id == nil {
		t.Fatalf("no download link:\n%s", list.Body)
	}
	if dl := c.get(created.Location + "/documents/" + id[1] + "/download"); dl.Status != http.StatusOK || dl.Body != string(pdf) {
		t.Errorf("download from S3: %d, %d bytes, want %d", dl.Status, len(dl.Body), len(pdf))
	}
	if t.Failed() {
		t.Logf("container log:\n%s", ctr.logs())
	}
}

// vendored lists the files of assets/vendor.list.
func vendored(t testing.TB) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "assets", "vendor.list"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 2 && !strings.HasPrefix(f[0], "#") {
			names = append(names, f[0])
		}
	}
	return names
}

// repoRoot is the module's root (tests run in their package's folder).
func repoRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// container is a running container of the image.
type container struct {
	id   string
	conf string
}

// podman runs podman with the settings these machines need (runc, cgroupfs,
// no default ulimits: image/containers.conf).
func podman(t testing.TB, conf string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.CommandContext(context.Background(), "podman", append([]string{"--runtime", "runc"}, args...)...)
	cmd.Env = append(os.Environ(), "CONTAINERS_CONF="+conf)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return strings.TrimSpace(out.String()), err
}

// startContainer runs the image on the host's network, listening on a free
// port, and waits until /readyz answers 200. A port taken between the choice
// and the container's bind ends the container: another port is tried.
func startContainer(t testing.TB, image string, vars map[string]string) (*container, string) {
	t.Helper()
	conf := filepath.Join(repoRoot(t), "image", "containers.conf")
	for attempt := 1; ; attempt++ {
		addr := freeAddr(t)
		args := []string{"run", "-d", "--network", "host"}
		env := map[string]string{"PORTAL_LISTEN_ADDR": addr, "PORTAL_SANDBOX_LISTEN_ADDR": freeAddr(t), "PORTAL_LOG_LEVEL": "info"}
		for k, v := range vars {
			env[k] = v
		}
		for k, v := range env {
			args = append(args, "-e", k+"="+v)
		}
		id, err := podman(t, conf, append(args, image)...)
		if err != nil {
			t.Fatalf("podman run: %v\n%s", err, id)
		}
		c := &container{id: id, conf: conf}
		t.Cleanup(func() { _, _ = podman(t, conf, "rm", "-f", "-t", "0", id) })
		base := "http://" + addr
		if c.waitReady(t, base) {
			return c, base
		}
		if attempt == 3 || !strings.Contains(c.logs(), "address already in use") {
			t.Fatalf("the container stopped before it was ready:\n%s", c.logs())
		}
	}
}

// waitReady waits until /readyz answers 200 (true) or the container stops (false).
func (c *container) waitReady(t testing.TB, base string) bool {
	t.Helper()
	ready := false
	testutil.Eventually(t, 90*time.Second, "the container to be ready", func() (bool, string) {
		if res := newClient(base, "").get("/readyz"); res.Status == http.StatusOK {
			ready = true
			return true, ""
		}
		state, _ := podman(t, c.conf, "inspect", "--format", "{{.State.Running}}", c.id)
		return state == "false", "running: " + state
	})
	return ready
}

func (c *container) logs() string {
	out, err := exec.CommandContext(context.Background(), "podman", "logs", c.id).CombinedOutput()
	if err != nil {
		return fmt.Sprintf("(no logs: %v) %s", err, out)
	}
	return string(out)
}

// processUID reads, on the host, the real user id of the container's process.
func (c *container) processUID(t testing.TB) string {
	t.Helper()
	pid, err := podman(t, c.conf, "inspect", "--format", "{{.State.Pid}}", c.id)
	if err != nil {
		t.Fatalf("podman inspect: %v %s", err, pid)
	}
	status, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "Uid:" {
			return f[1]
		}
	}
	return ""
}
