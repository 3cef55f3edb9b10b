// Package portalproc runs the portal as a child process, for the tests that
// kill it with SIGKILL mid-work and start another to see what survives, and
// for those that run several replicas (or the standalone sandbox) at once.
package portalproc

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Build builds cmd/portal (without the race detector) into a temporary
// folder of the test and returns the binary's path. It builds as the image
// does (scripts/build-image.sh: static, trimmed paths), so the tests run the
// binary the image ships and share its build cache.
func Build(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "portal")
	cmd := exec.CommandContext(t.Context(), "go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, "github.com/payportal/portal/cmd/portal")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the portal: %v\n%s", err, out)
	}
	return bin
}

// Process is a running `portal serve`; it keeps what the process printed.
type Process struct {
	cmd *exec.Cmd
	mu  sync.Mutex
	out bytes.Buffer
	// exited is closed once the process has ended and been waited for.
	exited chan struct{}
}

// Write keeps a part of the process's output.
func (p *Process) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.Write(b)
}

// Output is everything the process printed so far.
func (p *Process) Output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// Start runs `bin serve` with only PATH, HOME and vars in its environment;
// the test's cleanup kills it if the test did not.
func Start(t testing.TB, bin string, vars map[string]string) *Process {
	t.Helper()
	return StartCommand(t, bin, vars, "serve")
}

// StartCommand runs `bin args...` (such as "sandbox") as Start runs serve.
func StartCommand(t testing.TB, bin string, vars map[string]string, args ...string) *Process {
	t.Helper()
	p := &Process{cmd: exec.CommandContext(t.Context(), bin, args...), exited: make(chan struct{})}
	p.cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	for k, v := range vars {
		p.cmd.Env = append(p.cmd.Env, k+"="+v)
	}
	p.cmd.Stdout, p.cmd.Stderr = p, p
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() { p.Kill(t) })
	return p
}

// WaitStarted waits until the process logs that it serves (true) or ends
// first, as when its address was taken in the meantime (false). It fails the
// test if neither happens within the time given.
func (p *Process) WaitStarted(t testing.TB, within time.Duration) bool {
	t.Helper()
	return p.WaitPrinted(t, "portal started", within)
}

// WaitPrinted waits until the process prints line (true) or ends first
// (false), failing the test if neither happens within the time given.
func (p *Process) WaitPrinted(t testing.TB, line string, within time.Duration) bool {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(within)
	for {
		if strings.Contains(p.Output(), line) {
			return true
		}
		select {
		case <-p.exited:
			return strings.Contains(p.Output(), line)
		case <-deadline:
			t.Fatalf("the portal neither started nor ended within %v:\n%s", within, p.Output())
		case <-tick.C:
		}
	}
}

// Exited is closed once the process has ended.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// ExitCode is the process's exit code once it has ended (-1 before, or when
// a signal ended it).
func (p *Process) ExitCode() int {
	select {
	case <-p.exited:
		return p.cmd.ProcessState.ExitCode()
	default:
		return -1
	}
}

// Terminate sends SIGTERM, as an orchestrator stopping the process does; it
// does not wait (see Exited).
func (p *Process) Terminate(t testing.TB) {
	t.Helper()
	select {
	case <-p.exited:
		return
	default:
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Errorf("SIGTERM: %v", err)
	}
}

// Kill ends the process with SIGKILL: no shutdown, no cleanup, as a crash.
func (p *Process) Kill(t testing.TB) {
	t.Helper()
	select {
	case <-p.exited:
		return
	default:
	}
	_ = p.cmd.Process.Kill()
	<-p.exited
}

// Pid is the process's id, to read its memory from /proc.
func (p *Process) Pid() int { return p.cmd.Process.Pid }
