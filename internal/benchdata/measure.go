package benchdata

import (
	"runtime"
	"sync"
	"syscall"
	"time"
)

// Measurement is the cost of one measured call.
type Measurement struct {
	Elapsed time.Duration
	// PeakHeap is the largest live heap (runtime HeapInuse) sampled every
	// 20 ms during the call; PeakSys the largest memory obtained from the OS.
	PeakHeap, PeakSys uint64
	// MaxRSS is the process's peak resident set (getrusage), in bytes: it
	// covers the whole process, not only the call.
	MaxRSS int64
}

// Measure runs fn and reports its wall time and memory peaks.
func Measure(fn func() error) (Measurement, error) {
	runtime.GC()
	var m Measurement
	var mu sync.Mutex
	sample := func() {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		mu.Lock()
		m.PeakHeap = max(m.PeakHeap, ms.HeapInuse)
		m.PeakSys = max(m.PeakSys, ms.Sys-ms.HeapReleased)
		mu.Unlock()
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				sample()
			}
		}
	}()
	start := time.Now()
	err := fn()
	m.Elapsed = time.Since(start)
	close(done)
	wg.Wait()
	sample()
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		m.MaxRSS = ru.Maxrss * 1024 // Linux reports kilobytes
	}
	return m, err
}
