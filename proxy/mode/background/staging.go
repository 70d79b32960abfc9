package background

import (
	"errors"
	"sync"
	"time"

	"github.com/h5proxy/h5proxy/emulate"
	"github.com/h5proxy/h5proxy/plan"
	"github.com/h5proxy/h5proxy/proxy/stack"
)

// stagingPool bounds the memory that holds copies of the caller's buffers while their
// operations wait for the background. Buffers are kept for reuse (each step usually
// stages the same sizes, and fresh memory is slow to touch), but everything mapped, in
// use or free, stays within the limit, so the pool's resident size never exceeds it.
type stagingPool struct {
	mu      sync.Mutex
	cond    *sync.Cond
	limit   int
	inUse   int
	mapped  int
	free    map[int][]*emulate.Buffer
	high    int           // high-water mark of inUse
	blocked time.Duration // time callers waited for room
}

// errTooBig is returned for a request larger than the whole pool: the caller runs that
// operation synchronously instead (the Async VOL does the same when memory is short).
var errTooBig = errors.New("staging request exceeds the staging limit")

func newStagingPool(limit int) *stagingPool {
	p := &stagingPool{limit: limit, free: map[int][]*emulate.Buffer{}}
	p.cond = sync.NewCond(&p.mu)
	return p
}

// get returns n bytes of staging memory and the function that gives them back, waiting
// while the pool is full (backpressure).
func (p *stagingPool) get(n int) ([]byte, func(), error) {
	if n > p.limit {
		return nil, nil, errTooBig
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	start := time.Now()
	for p.inUse+n > p.limit {
		p.cond.Wait()
	}
	p.blocked += time.Since(start)
	var b *emulate.Buffer
	if l := p.free[n]; len(l) > 0 {
		b, p.free[n] = l[len(l)-1], l[:len(l)-1]
	} else {
		// Unmap unused buffers of other sizes until the new one fits under the limit.
		for size, l := range p.free {
			for len(l) > 0 && p.mapped+n > p.limit {
				l[len(l)-1].Free()
				l = l[:len(l)-1]
				p.mapped -= size
			}
			p.free[size] = l
		}
		var err error
		if b, err = emulate.Alloc(n); err != nil {
			return nil, nil, err
		}
		p.mapped += n
	}
	p.inUse += n
	if p.inUse > p.high {
		p.high = p.inUse
	}
	return b.Bytes(), func() {
		p.mu.Lock()
		p.inUse -= n
		p.free[n] = append(p.free[n], b)
		p.mu.Unlock()
		p.cond.Broadcast()
	}, nil
}

// stage implements stager: memory from the pool.
func (p *stagingPool) stage(_ *plan.Op, n int) ([]byte, func(), error) { return p.get(n) }

// takeStats returns and resets the high-water mark and the blocked time.
func (p *stagingPool) takeStats() (high int, blocked time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	high, blocked = p.high, p.blocked
	p.high, p.blocked = p.inUse, 0
	return
}

// release unmaps every free buffer.
func (p *stagingPool) release() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for size, l := range p.free {
		for _, b := range l {
			b.Free()
			p.mapped -= size
		}
		delete(p.free, size)
	}
}

// fits reports whether n more bytes fit now, without waiting.
func (p *stagingPool) fits(n int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.inUse+n <= p.limit
}

// lend returns n bytes of the pool as lent memory, waiting for room.
func (p *stagingPool) lend(n int) (*stack.Lent, error) {
	buf, release, err := p.get(n)
	if err != nil {
		return nil, err
	}
	return stack.NewLent(buf, release), nil
}
