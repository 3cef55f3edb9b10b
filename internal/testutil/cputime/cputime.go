// Package cputime reads how much CPU this process and the PostgreSQL server of the tests
// have used, so benchmarks can report CPU per request or per push beside their times.
// Linux only (it reads /proc); elsewhere the PostgreSQL figure is zero.
package cputime

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Process is the CPU time (user and system) this process has used so far.
func Process() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Postgres follows the CPU of the PostgreSQL server a pool talks to, when it runs on
// this machine.
type Postgres struct{ postmaster int }

// FindPostgres finds the server process behind pool: the parent of its backend. It
// returns a zero Postgres (reading zero) when the server is not on this machine.
func FindPostgres(ctx context.Context, pool *pgxpool.Pool) Postgres {
	var backend int
	if err := pool.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&backend); err != nil {
		return Postgres{}
	}
	f := stat(backend)
	if len(f) < 2 {
		return Postgres{}
	}
	ppid, _ := strconv.Atoi(f[1])
	return Postgres{postmaster: ppid}
}

// Used is the CPU time used so far by the server's live children: its backends and
// background workers. Differences between two readings are what the server did
// meanwhile, as long as the connections stay open.
func (p Postgres) Used() time.Duration {
	if p.postmaster == 0 {
		return 0
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	parent := strconv.Itoa(p.postmaster)
	var ticks int64
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		f := stat(pid)
		if len(f) < 13 || f[1] != parent {
			continue
		}
		utime, _ := strconv.ParseInt(f[11], 10, 64)
		stime, _ := strconv.ParseInt(f[12], 10, 64)
		ticks += utime + stime
	}
	return time.Duration(ticks) * 10 * time.Millisecond // USER_HZ is 100 on Linux
}

// stat returns the fields of /proc/<pid>/stat after the command name: state, ppid, ...
func stat(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(s[i+1:])
}

// LoadAverage is the machine's load average over 1, 5 and 15 minutes.
func LoadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}
