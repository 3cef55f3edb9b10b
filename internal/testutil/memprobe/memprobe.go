// Package memprobe measures how far a benchmark's work raises the Go runtime's
// memory: it samples the runtime's metrics every millisecond while the work
// runs, after a collection, and reports the largest rises.
package memprobe

import (
	"runtime"
	"runtime/metrics"
	"time"
)

// metricNames are the runtime metrics read: the bytes of live (and not yet
// swept) heap objects, and the runtime's memory as the operating system sees
// it (everything mapped, minus what was handed back), which also covers
// stacks and runtime buffers.
var metricNames = [...]string{
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/total:bytes",
	"/memory/classes/heap/released:bytes",
}

// Levels reads the live heap and the memory the runtime holds from the system.
func Levels() (heap, held uint64) {
	var s [len(metricNames)]metrics.Sample
	for i, name := range metricNames {
		s[i].Name = name
	}
	metrics.Read(s[:])
	return s[0].Value.Uint64(), s[1].Value.Uint64() - s[2].Value.Uint64()
}

// Result is what Measure saw: how long the work took and the largest rises,
// above their levels at the start, of the live heap and of the held memory.
type Result struct {
	Elapsed            time.Duration
	HeapPeak, HeldPeak uint64
}

// Peak is the larger of the two rises.
func (r Result) Peak() uint64 { return max(r.HeapPeak, r.HeldPeak) }

// Measure runs fn after a collection, sampling memory every millisecond
// until it returns, and returns its error with what was seen.
func Measure(fn func() error) (Result, error) {
	runtime.GC()
	baseHeap, baseHeld := Levels()
	var r Result
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			heap, held := Levels()
			if heap > baseHeap {
				r.HeapPeak = max(r.HeapPeak, heap-baseHeap)
			}
			if held > baseHeld {
				r.HeldPeak = max(r.HeldPeak, held-baseHeld)
			}
			select {
			case <-tick.C:
			case <-stop:
				return
			}
		}
	}()
	start := time.Now()
	err := fn()
	r.Elapsed = time.Since(start)
	close(stop)
	<-done
	return r, err
}
