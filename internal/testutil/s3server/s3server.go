// Package s3server starts a real S3-compatible server (versitygw with its
// posix back end) for tests, so S3 code is tested against SigV4 checks,
// Content-Length rules and error codes like those of AWS.
package s3server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// BinaryEnv names an environment variable that may hold the path of the
// versitygw binary, ahead of PATH and the Go bin directories.
const BinaryEnv = "VERSITYGW_BIN"

// Server describes a running versitygw with one empty bucket. It holds only
// plain strings so that any package can build its own client or config.
type Server struct {
	// Endpoint is the base URL, such as "http://127.0.0.1:41234".
	Endpoint string
	// Region is the region the server signs for.
	Region string
	// Bucket is the bucket created for the test.
	Bucket string
	// AccessKeyID and SecretAccessKey are the root credentials.
	AccessKeyID     string
	SecretAccessKey string
	// Dir is the posix back end's directory; bucket contents live in
	// Dir/Bucket.
	Dir string
}

const (
	region       = "us-east-1"
	bucket       = "portal-test"
	readyTimeout = 15 * time.Second
	stopTimeout  = 5 * time.Second
	// startAttempts covers the rare case where another process takes the
	// free port between our probe and versitygw's bind.
	startAttempts = 3
)

// Start runs versitygw on a free loopback port with a fresh directory,
// creates a bucket, and stops the server when the test ends. It fails the
// test if versitygw is not installed.
func Start(t testing.TB) Server {
	t.Helper()
	bin := findBinary(t)
	srv := Server{
		Region:          region,
		Bucket:          bucket,
		AccessKeyID:     "portal" + randomHex(t, 6),
		SecretAccessKey: randomHex(t, 20),
		Dir:             t.TempDir(),
	}
	var lastErr error
	for range startAttempts {
		endpoint, err := startProcess(t, bin, srv)
		if err == nil {
			srv.Endpoint = endpoint
			break
		}
		lastErr = err
	}
	if srv.Endpoint == "" {
		t.Fatalf("s3server: starting versitygw: %v", lastErr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	if _, err := srv.Client().CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(srv.Bucket)}); err != nil {
		t.Fatalf("s3server: creating bucket %s: %v", srv.Bucket, err)
	}
	return srv
}

// Client returns an S3 client for the server, path-style, with the root
// credentials.
func (s Server) Client() *s3.Client {
	return s3.New(s3.Options{
		BaseEndpoint: aws.String(s.Endpoint),
		Region:       s.Region,
		Credentials:  credentials.NewStaticCredentialsProvider(s.AccessKeyID, s.SecretAccessKey, ""),
		UsePathStyle: true,
	})
}

// startProcess starts versitygw on a free port and waits until it accepts
// connections. On success the process is stopped in t.Cleanup.
func startProcess(t testing.TB, bin string, srv Server) (string, error) {
	t.Helper()
	addr, err := freeAddr()
	if err != nil {
		return "", err
	}
	logPath := filepath.Join(t.TempDir(), "versitygw.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return "", err
	}
	// The server lives until the test ends; stop interrupts it, so no context ends it.
	cmd := exec.CommandContext(context.Background(), bin,
		"--access", srv.AccessKeyID,
		"--secret", srv.SecretAccessKey,
		"--region", srv.Region,
		"--port", addr,
		"--quiet",
		"posix", srv.Dir)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	// Keep the caller's AWS settings from leaking into the server.
	cmd.Env = []string{"HOME=" + srv.Dir, "PATH=" + os.Getenv("PATH")}
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return "", fmt.Errorf("running %s: %w", bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	if err := waitReady(addr, exited); err != nil {
		_ = cmd.Process.Kill()
		<-exited
		_ = logFile.Close()
		return "", fmt.Errorf("%w; log:\n%s", err, readLog(logPath))
	}
	t.Cleanup(func() {
		stop(cmd, exited)
		_ = logFile.Close()
		if t.Failed() {
			t.Logf("versitygw log:\n%s", readLog(logPath))
		}
	})
	return "http://" + addr, nil
}

// waitReady polls until the port accepts a connection, the process exits or
// the deadline passes. Polling is the only signal versitygw gives.
func waitReady(addr string, exited <-chan error) error {
	deadline := time.NewTimer(readyTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		conn, err := (&net.Dialer{Timeout: time.Second}).DialContext(context.Background(), "tcp", addr)
		if err == nil {
			_ = conn.Close()
			return nil
		}
		select {
		case err := <-exited:
			return fmt.Errorf("versitygw exited before accepting connections: %w", err)
		case <-deadline.C:
			return fmt.Errorf("versitygw did not accept connections on %s within %s", addr, readyTimeout)
		case <-tick.C:
		}
	}
}

func stop(cmd *exec.Cmd, exited <-chan error) {
	_ = cmd.Process.Signal(os.Interrupt)
	timer := time.NewTimer(stopTimeout)
	defer timer.Stop()
	select {
	case <-exited:
	case <-timer.C:
		_ = cmd.Process.Kill()
		<-exited
	}
}

func freeAddr() (string, error) {
	l, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("finding a free port: %w", err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		return "", err
	}
	return addr, nil
}

// findBinary looks in $VERSITYGW_BIN, PATH, $GOBIN and each $GOPATH/bin.
func findBinary(t testing.TB) string {
	t.Helper()
	if p := os.Getenv(BinaryEnv); p != "" {
		if isExecutable(p) {
			return p
		}
		t.Fatalf("s3server: %s=%q is not an executable file", BinaryEnv, p)
	}
	if p, err := exec.LookPath("versitygw"); err == nil {
		return p
	}
	dirs := goBinDirs()
	for _, dir := range dirs {
		p := filepath.Join(dir, "versitygw")
		if isExecutable(p) {
			return p
		}
	}
	t.Fatalf("s3server: versitygw not found on PATH or in %s. Run `make test`, which installs it, "+
		"or `go install github.com/versity/versitygw/cmd/versitygw@latest`.", strings.Join(dirs, ", "))
	return ""
}

func goBinDirs() []string {
	out, err := exec.CommandContext(context.Background(), "go", "env", "GOBIN", "GOPATH").Output()
	if err != nil {
		home, _ := os.UserHomeDir()
		return []string{filepath.Join(home, "go", "bin")}
	}
	// One line per variable, the first empty when GOBIN is unset.
	lines := strings.SplitN(string(out), "\n", 3)
	var dirs []string
	if gobin := strings.TrimSpace(lines[0]); gobin != "" {
		dirs = append(dirs, gobin)
	}
	if len(lines) > 1 {
		for _, p := range filepath.SplitList(strings.TrimSpace(lines[1])) {
			dirs = append(dirs, filepath.Join(p, "bin"))
		}
	}
	return dirs
}

func isExecutable(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.Mode().IsRegular() && info.Mode().Perm()&0o111 != 0
}

func readLog(p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		return fmt.Sprintf("(log unreadable: %v)", err)
	}
	const tail = 4096
	if len(b) > tail {
		b = b[len(b)-tail:]
	}
	return string(b)
}

func randomHex(t testing.TB, n int) string {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatalf("s3server: random credentials: %v", err)
	}
	return hex.EncodeToString(b)
}
