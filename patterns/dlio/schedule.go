package dlio

// segment is a run of read steps: one epoch's training or evaluation.
type segment struct {
	epoch int
	eval  bool
	first int // first read step
	steps int // steps of the rank with the most batches
}

// trainBatches is the program's NUM_TRAIN_BATCHES_PER_RANK: whole batches per rank, the
// samples left over dropped.
func (c Config) trainBatches(ranks int) uint64 {
	return c.FilesTrain * c.Samples / c.Batch / uint64(ranks)
}

// evalBatches is NUM_EVAL_BATCHES_PER_RANK.
func (c Config) evalBatches(ranks int) uint64 {
	return c.FilesEval * c.Samples / c.BatchEval / uint64(ranks)
}

// limited reports whether total-training-steps cuts the training short: the program
// ignores it (sets it to -1) unless it is below the batches all ranks have.
func (c Config) limited(ranks int) bool {
	return c.TotalSteps >= 0 && uint64(c.TotalSteps) < c.trainBatches(ranks)*uint64(ranks)
}

// rankTrainBatches is the training batches rank reads per epoch: TOTAL_TRAINING_STEPS_PER_RANK
// when limited (the first total % ranks ranks take one more), else every batch it has.
func (c Config) rankTrainBatches(rank, ranks int) uint64 {
	if !c.limited(ranks) {
		return c.trainBatches(ranks)
	}
	n := uint64(c.TotalSteps) / uint64(ranks)
	if uint64(rank) < uint64(c.TotalSteps)%uint64(ranks) {
		n++
	}
	return n
}

// TrainSteps is the training batches over all ranks per epoch, as the program counts them
// for its sizes and throughput.
func (c Config) TrainSteps(ranks int) uint64 {
	if c.limited(ranks) {
		return uint64(c.TotalSteps)
	}
	return c.trainBatches(ranks) * uint64(ranks)
}

// evalDue lists, per epoch, whether the program evaluates after its training: with
// evaluation, when epoch + 1 reaches the next evaluation epoch, which then moves on by
// epochs-between-evals.
func (c Config) evalDue() []bool {
	due := make([]bool, c.Epochs)
	next := c.EpochsBetweenEvals
	for e := range due {
		if c.Eval && e+1 >= next {
			due[e] = true
			next += c.EpochsBetweenEvals
		}
	}
	return due
}

// segments lays the read steps out: each epoch's training, then its evaluation when due.
func (c Config) segments(ranks int) []segment {
	trainSteps := int(c.rankTrainBatches(0, ranks)) // rank 0 has the most
	var segs []segment
	first := 0
	for e, due := range c.evalDue() {
		segs = append(segs, segment{epoch: e, first: first, steps: trainSteps})
		first += trainSteps
		if due {
			segs = append(segs, segment{epoch: e, eval: true, first: first, steps: int(c.evalBatches(ranks))})
			first += int(c.evalBatches(ranks))
		}
	}
	return segs
}

// sampleRef is one sample read: file (from 1) of the train or valid folder, sample in it.
type sampleRef struct {
	eval   bool
	file   uint64
	sample uint64
}

// stepReads is what a rank does in one read step.
type stepReads struct {
	reads        []sampleRef
	preprocessUS int64 // the batch's preprocess draws
	computeUS    int64 // the batch's computation (or evaluation) draw
}

// schedule is a rank's whole read phase.
type schedule struct {
	steps []stepReads
}

// schedule returns (and keeps) the read schedule of a rank.
func (p *Pattern) schedule(rank, ranks int) *schedule {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := [2]int{rank, ranks}
	if s, ok := p.schedules[k]; ok {
		return s
	}
	if p.schedules == nil {
		p.schedules = map[[2]int]*schedule{}
	}
	s := p.C.plan(rank, ranks)
	p.schedules[k] = s
	return s
}

// plan replays the program's use of rand() on one rank, from its srand(random-seed) at
// start-up: the data generation of the same run (which reseeds per file and draws a
// value per byte), then per epoch the shuffles and the compute draws, and lays out which
// samples the rank reads in each step.
//
// With read-threads 0 the rank reads batch i's sample j at index offset + i x batch + j of
// the shuffled order, offset being rank x batches-per-rank: samples, where the program's
// offset counts batches (ranks' batches overlap, as the program's do). With read threads,
// batch offset + i goes to a reader process, which reads indices (offset + i) x batch + j
// of its own copy of the order: the readers, forked from the rank, shuffle their copies
// with their own rand() state (reseeded with seed-change-epoch by their count of epochs),
// while the rank draws the compute times.
func (c Config) plan(rank, ranks int) *schedule {
	var main crand
	main.seed(uint32(c.Seed))
	if c.Generate {
		c.replayGeneration(&main, rank, ranks)
	}
	trainIdx := iota32(c.FilesTrain * c.Samples)
	evalIdx := iota32(c.FilesEval * c.Samples)
	workers := c.ReadThreads > 0
	trainRNG, evalRNG := main, main // the readers' copies at their fork
	// The readers' preprocess draws depend on which reader takes which batch (a race): they
	// are drawn from a stream of their own, leaving the readers' shuffles as the program's
	// are when preprocess-time and its deviation are 0.
	var prepRNG crand
	prepRNG.seed(uint32(c.Seed) + uint32(rank) + 1)
	s := &schedule{}
	evals := 0
	for _, seg := range c.segments(ranks) {
		batch, batches := c.Batch, c.rankTrainBatches(rank, ranks)
		idx, shuffler, reseed := trainIdx, &main, uint32(c.Seed)+uint32(seg.epoch)
		mean, dev := c.Computation, c.ComputationDev
		offsetBatches := c.trainBatches(ranks)
		if seg.eval {
			batch, batches = c.BatchEval, c.evalBatches(ranks)
			idx, reseed = evalIdx, uint32(2*c.Seed)+uint32(seg.epoch)
			mean, dev = c.EvalTime, c.EvalStdev
			offsetBatches = c.evalBatches(ranks)
		}
		if workers {
			shuffler = &trainRNG
			if seg.eval {
				shuffler, reseed = &evalRNG, uint32(2*c.Seed)+uint32(evals)
				evals++
			}
		}
		if c.SeedChangeEpoch {
			shuffler.seed(reseed)
		}
		if c.Shuffle {
			shuffler.shuffle(idx)
		}
		prep := &main
		if workers {
			prep = &prepRNG
		}
		for i := uint64(0); i < uint64(seg.steps); i++ {
			var st stepReads
			if i < batches {
				for j := uint64(0); j < batch; j++ {
					var k uint64
					if workers {
						k = (uint64(rank)*offsetBatches+i)*batch + j
					} else {
						k = uint64(rank)*offsetBatches + i*batch + j
					}
					st.reads = append(st.reads, sampleRef{eval: seg.eval, file: uint64(idx[k])/c.Samples + 1, sample: uint64(idx[k]) % c.Samples})
					st.preprocessUS += prep.normalMicros(c.Preprocess, c.PreprocessStdev)
				}
				st.computeUS = main.normalMicros(mean, dev)
			}
			s.steps = append(s.steps, st)
		}
	}
	return s
}

// replayGeneration advances rand() as the program's generate_data leaves it on a rank:
// the last file the rank generates reseeded it with srand(random-seed + i) (train file i)
// or srand(random-seed + num-files-train + i) (valid file i), then drew one value per byte
// of its buffer.
func (c Config) replayGeneration(g *crand, rank, ranks int) {
	last, ok := int64(-1), false
	if n := c.FilesEval; n > uint64(rank) {
		last, ok = int64(c.FilesTrain)+int64(uint64(rank)+(n-1-uint64(rank))/uint64(ranks)*uint64(ranks)), true
	} else if n := c.FilesTrain; n > uint64(rank) {
		last, ok = int64(uint64(rank)+(n-1-uint64(rank))/uint64(ranks)*uint64(ranks)), true
	}
	if !ok {
		return
	}
	g.seed(uint32(c.Seed + last))
	g.skip(min(c.RecordLength*c.Samples, GenerationBufferSize))
}

func iota32(n uint64) []uint32 {
	a := make([]uint32, n)
	for i := range a {
		a[i] = uint32(i)
	}
	return a
}
