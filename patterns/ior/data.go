package ior

import (
	"encoding/binary"
	"sync"
)

// IOR's data (IOR 4.1, utilities.c: generate_memory_pattern, update_write_memory_pattern,
// verify_memory_pattern; ior.c: TestIoSys, WriteOrReadSingle, CompareData). IOR's
// default packet type is the time stamp: at the start of each test (repetition) it fills
// its one transfer buffer with the pattern of its (pretended) rank, and its per-write
// update returns at once for that type, so every write of the test writes the same
// buffer. A read check (-R, -W) compares each transfer with the pattern of the task whose
// data it reads. The drop-in writes the same bytes: every transfer of a step carries one
// shared copy of the pattern (plan.Transfer.Data), which the session copies into its
// buffer once per step (a write whose buffer already holds the same Data is not
// refilled) and checks reads against.

// patternWord is word i (8 bytes) of IOR's time-stamp packet of task, signature sig: the
// task in the high 32 bits, OR'd with sig + i. IOR adds an int signature to a size_t
// index, so a negative signature sign-extends into the high bits, as here.
func patternWord(sig int32, task int, i int) uint64 {
	return uint64(task)<<32 | uint64(int64(sig)+int64(i))
}

// signature is the time-stamp signature of the test's data: -G's value when set
// (setTimeStampSignature, which IOR then uses for every repetition), otherwise one drawn
// from the session's seed, the same on every rank and repetition. (IOR without -G stamps
// each repetition with rank 0's time(NULL), broadcast; a read check of another run's
// file then needs -G on both runs, which IOR's validation asks for.)
func (c Config) signature(seed uint64) int32 {
	if c.Signature != 0 {
		return int32(c.Signature)
	}
	return int32(seed & 0x7fffffff)
}

// dataKey names a pattern buffer: the signature, the task and the transfer's bytes.
type dataKey struct {
	sig   int32
	task  int
	bytes uint64
}

// patternCache keeps the pattern buffers a process's plans share (every step of a rank
// writes the same bytes), so a step's plan does not generate 4 MiB anew. Ranks that run
// in one process (tests) each have their own; it is bounded.
type patternCache struct {
	mu   sync.Mutex
	bufs map[dataKey][]byte
}

// patternCacheMax bounds the buffers kept (each rank in a process keeps one).
const patternCacheMax = 64

// data returns the transfer buffer of task's data: bytes of IOR's time-stamp packet with
// signature sig. The slice is shared and must not be written.
func (pc *patternCache) data(sig int32, task int, bytes uint64) []byte {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	k := dataKey{sig, task, bytes}
	if b, ok := pc.bufs[k]; ok {
		return b
	}
	if pc.bufs == nil || len(pc.bufs) >= patternCacheMax {
		pc.bufs = map[dataKey][]byte{}
	}
	b := make([]byte, bytes)
	for i := 0; (i+1)*elemSize <= len(b); i++ {
		binary.NativeEndian.PutUint64(b[i*elemSize:], patternWord(sig, task, i))
	}
	pc.bufs[k] = b
	return b
}
