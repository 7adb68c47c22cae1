// Package warm is the base the container backends (Docker, Kubernetes)
// share: their common options (Options), what a run's sandbox starts from
// (Prepared) and the paths inside it, the errors a failed sandbox reports,
// and the warm pool.
//
// The pool keeps a bounded set of started, unplanted sandboxes per key (a
// study's snapshot image and toolbox command line), so that a run takes one
// that is already running instead of creating it on its critical path
// (Take). The backends own what an item is; the pool only counts, hands out
// and cleans up.
//
// Rules the pool keeps:
//   - an item is handed out once, to one run, and never comes back: the run
//     closes it like any sandbox it opened (Take is the only way out);
//   - nothing run-specific exists before Take: an item is a fresh sandbox
//     of the task's snapshot, planted by the run that takes it;
//   - at most Size items per key wait ready or in creation beyond those
//     runs wait for, and with Limit at most that many over every key (a key
//     that needs one then takes the place of another key's ready item), so
//     a study's idle sandboxes are bounded;
//   - creations run on the pool's own context: a run that is cancelled
//     while it waits leaves its item to the next run, and Close cancels
//     every creation, waits for them and destroys what is ready.
package warm

import (
	"context"
	"errors"
	"sync"

	"github.com/hashicorp/go-hclog"
)

// ErrClosed is what Take returns once the pool is closed.
var ErrClosed = errors.New("warm pool closed")

// Create starts one item of a key; Destroy removes an item never handed
// out. Create must clean up after itself when it fails (also when its
// context is cancelled).
type (
	Create[T any]  func(ctx context.Context) (T, error)
	Destroy[T any] func(ctx context.Context, item T) error
)

// Pool is a set of warm sandboxes per key.
type Pool[T any] struct {
	size    int
	limit   int // spare items over every key; 0: no bound but size per key
	destroy Destroy[T]
	log     hclog.Logger

	ctx    context.Context // creations; cancelled by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu     sync.Mutex
	closed bool
	keys   map[string]*slot[T]
	idle   chan struct{} // closed and replaced when nothing is in creation
}

// slot is one key's items.
type slot[T any] struct {
	create   Create[T]
	ready    []T
	waiters  []chan result[T]
	inflight int
	failed   bool // the last creation failed: refill only on demand
}

type result[T any] struct {
	item T
	err  error
}

// New returns a pool of size items per key; destroy removes items nobody
// took when the pool closes.
func New[T any](size int, destroy Destroy[T], log hclog.Logger) *Pool[T] {
	if log == nil {
		log = hclog.NewNullLogger()
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Pool[T]{size: max(0, size), destroy: destroy, log: log, ctx: ctx, cancel: cancel, keys: map[string]*slot[T]{}}
}

// Size is the number of items the pool keeps ready per key.
func (p *Pool[T]) Size() int { return p.size }

// Limit bounds the spare items (ready, or in creation for no waiting run)
// over every key to n; 0 means no bound but Size per key. When a key needs
// a spare item and the pool is at its limit, the oldest ready item of the
// key with the most is destroyed to make room: the pool follows the runs'
// demand. It returns p.
func (p *Pool[T]) Limit(n int) *Pool[T] {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.limit = max(0, n)
	return p
}

// Take hands out a ready item of key, or waits for one in creation; it
// starts creations (with create, the key's recipe, which must give equal
// items for equal keys) so that Size items stand ready again. The item is
// the caller's: nobody else ever gets it, and the caller closes it.
func (p *Pool[T]) Take(ctx context.Context, key string, create Create[T]) (T, error) {
	var zero T
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return zero, ErrClosed
	}
	s := p.keys[key]
	if s == nil {
		s = &slot[T]{create: create}
		p.keys[key] = s
	}
	s.failed = false
	if n := len(s.ready); n > 0 {
		item := s.ready[0]
		s.ready = s.ready[1:]
		p.refill(key, s)
		p.mu.Unlock()
		return item, nil
	}
	ch := make(chan result[T], 1)
	s.waiters = append(s.waiters, ch)
	p.refill(key, s)
	p.mu.Unlock()
	select {
	case r := <-ch:
		return r.item, r.err
	case <-ctx.Done():
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, w := range s.waiters {
		if w == ch {
			s.waiters = append(s.waiters[:i], s.waiters[i+1:]...)
			return zero, ctx.Err()
		}
	}
	// An item was handed to us as we gave up: it was never planted, so
	// it goes back for the next run (or is destroyed when closed).
	if r := <-ch; r.err == nil {
		if p.closed {
			p.destroyLater(r.item)
		} else {
			s.ready = append(s.ready, r.item)
		}
	}
	return zero, ctx.Err()
}

// refill starts creations until the ready and coming items cover the
// waiting runs plus Size. p.mu is held.
func (p *Pool[T]) refill(key string, s *slot[T]) {
	want := len(s.waiters)
	if !s.failed {
		want += p.size
	}
	for !p.closed && len(s.ready)+s.inflight < want {
		if spare := len(s.ready)+s.inflight >= len(s.waiters); spare && p.limit > 0 && p.spare() >= p.limit && !p.evict(s) {
			return
		}
		s.inflight++
		if p.idle == nil {
			p.idle = make(chan struct{})
		}
		p.wg.Add(1)
		go p.make(key, s)
	}
}

// spare counts the items, over every key, standing ready or in creation
// for no waiting run. p.mu is held.
func (p *Pool[T]) spare() int {
	n := 0
	for _, s := range p.keys {
		n += max(0, len(s.ready)+s.inflight-len(s.waiters))
	}
	return n
}

// evict destroys the oldest ready item of the key, other than keep, with
// the most ready, and reports whether there was one. p.mu is held.
func (p *Pool[T]) evict(keep *slot[T]) bool {
	var from *slot[T]
	for _, s := range p.keys {
		if s != keep && len(s.ready) > 0 && (from == nil || len(s.ready) > len(from.ready)) {
			from = s
		}
	}
	if from == nil {
		return false
	}
	item := from.ready[0]
	from.ready = from.ready[1:]
	p.destroyLater(item)
	return true
}

// make creates one item and hands it to the first waiting run, or keeps it
// ready.
func (p *Pool[T]) make(key string, s *slot[T]) {
	defer p.wg.Done()
	item, err := s.create(p.ctx)
	p.mu.Lock()
	defer p.mu.Unlock()
	s.inflight--
	defer p.settle()
	switch {
	case len(s.waiters) > 0:
		w := s.waiters[0]
		s.waiters = s.waiters[1:]
		if err == nil && p.closed {
			p.destroyLater(item)
			err = ErrClosed
		}
		w <- result[T]{item, err}
	case err != nil:
		// Nobody waits: do not try again until a run asks, so a broken
		// backend does not spin.
		s.failed = true
		if p.ctx.Err() == nil {
			p.log.Warn("warm sandbox failed to start", "key", key, "error", err)
		}
	case p.closed:
		p.destroyLater(item)
	default:
		s.ready = append(s.ready, item)
	}
	if err != nil {
		return
	}
	p.refill(key, s)
}

// settle wakes Wait when nothing is in creation. p.mu is held.
func (p *Pool[T]) settle() {
	for _, s := range p.keys {
		if s.inflight > 0 {
			return
		}
	}
	if p.idle != nil {
		close(p.idle)
		p.idle = nil
	}
}

// Settle waits until no creation is under way (every key is back to Size
// ready items, or failed): what a benchmark waits for so that the work of
// refilling counts in the time it measures. A nil pool has nothing to wait
// for.
func (p *Pool[T]) Settle(ctx context.Context) error {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	idle := p.idle
	p.mu.Unlock()
	if idle == nil {
		return nil
	}
	select {
	case <-idle:
		return p.Settle(ctx)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Ready counts the items standing ready over every key (none in a nil
// pool).
func (p *Pool[T]) Ready() int {
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, s := range p.keys {
		n += len(s.ready)
	}
	return n
}

// destroyLater destroys an item nobody will take, in the background on a
// context of its own (destroy bounds its cleanup); Close waits for it.
// p.mu is held.
func (p *Pool[T]) destroyLater(item T) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		if err := p.destroy(context.Background(), item); err != nil {
			p.log.Warn("warm sandbox cleanup failed", "error", err)
		}
	}()
}

// Close stops the pool: it cancels every creation, fails the runs waiting,
// waits for the creations to end and destroys every item nobody took, on
// ctx (a context apart from any run's). Items handed out are their runs'
// to close. It is safe to call twice. A nil pool closes at once.
func (p *Pool[T]) Close(ctx context.Context) error {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	p.cancel()
	var ready []T
	for _, s := range p.keys {
		ready = append(ready, s.ready...)
		s.ready = nil
		for _, w := range s.waiters {
			var zero T
			w <- result[T]{zero, ErrClosed}
		}
		s.waiters = nil
	}
	p.mu.Unlock()
	var errs []error
	for _, item := range ready {
		if err := p.destroy(ctx, item); err != nil {
			errs = append(errs, err)
		}
	}
	p.wg.Wait()
	return errors.Join(errs...)
}
