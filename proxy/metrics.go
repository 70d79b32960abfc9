package proxy

import (
	"github.com/h5proxy/h5proxy/internal/h5"
	"github.com/h5proxy/h5proxy/internal/mpi"
	"github.com/h5proxy/h5proxy/plan"
)

// metric indexes one per-rank measurement. Times are seconds, sizes bytes (SI base units).
type metric int

const (
	mRaw          metric = iota // time inside dataset reads/writes
	mMetadata                   // group/dataset/attribute create, open, close
	mFileOpen                   // H5Fcreate or H5Fopen
	mFileFlush                  // H5Fflush
	mFileClose                  // H5Fclose
	mPrep                       // filling write buffers
	mVerify                     // checking read buffers
	mCompute                    // emulated compute
	mWait                       // waiting for background I/O
	mBytes                      // bytes read or written
	mMismatch                   // elements that failed verification
	mStart                      // wall-clock start (Unix seconds)
	mEnd                        // wall-clock end (Unix seconds)
	mExcluded                   // compute + preparation and verification inside the window (derived)
	mBackground                 // background I/O time (async, cache)
	mStaged                     // staging bytes high-water mark
	mBlocked                    // time the caller waited for staging room
	mCallerIO                   // time the caller spent in I/O calls and waits (derived)
	mLocalReads                 // reads served from the node-local cache
	mPrepBefore                 // the part of mPrep done before the observed window (fill=once)
	mPrepWindow                 // the part of mPrep done inside the observed window (derived)
	mWall                       // the rank's own time from start to end (derived)
	mOpens                      // file create/open and group/dataset create/open (part of file and metadata time)
	mDone                       // wall-clock time of the rank's last operation, before the phase's closing barrier (Unix seconds)
	mFileSize                   // bytes on disk of the files rank 0 created or opened, after the phase (rank 0 only)
	mSpan                       // the rank's own span from its file create/open to mDone, less in-window preparation and verification (derived)
	mFirstStart                 // wall-clock start of a step's first operation (Unix seconds)
	mFirstEnd                   // wall-clock end of a step's first operation
	mLastStart                  // wall-clock start of a step's last operation
	mLastEnd                    // wall-clock end of a step's last operation
	mOpsSpan                    // a step's time from its first operation's start to its last's end, less preparation and verification (derived)
	mInner                      // a step's time from its first operation's end to its last's start, less preparation and verification (derived)
	mLastStartOwn               // mLastStart less the step's preparation and verification (derived): when the last operation would start without them
	mLastEndOwn                 // mLastEnd less the step's preparation and verification (derived)
	// mKind is the first of the per-operation-kind times: mKind+k holds the time of the
	// operations of kind k (plan.OpKind), what a kernel's own report splits its columns by.
	mKind
	// mCalls+k counts the operations of kind k handed to the layout, mCallBytes+k the bytes
	// they moved (census.go).
	mCalls     = mKind + nOpKinds
	mCallBytes = mCalls + nOpKinds
	// mCollective counts the transfers carried out with a collective transfer list;
	// mIOMode+m those whose actual I/O mode was m, mCause+c those broken by cause bit c.
	mCollective = mCallBytes + nOpKinds
	mIOMode     = mCollective + 1
	mChunkOpt   = mIOMode + h5.NumIOModes // mChunkOpt+o: transfers of actual chunk optimisation o
	mCause      = mChunkOpt + h5.NumChunkOpts
	// mPath+p counts the transfers by path (h5.PathNames), mSelCause+c the calls that did
	// no selection I/O for cause bit c (HDF5 1.14 only).
	mPath     = mCause + h5.NumCauses
	mSelCause = mPath + h5.NumPaths
	// mMulti+k counts the multi-dataset calls of kind k (0 H5Dwrite_multi, 1
	// H5Dread_multi), mMulti+2+k the bytes they moved.
	mMulti = mSelCause + h5.NumSelCauses
	// mObject counts the opens of groups and datasets through H5Oopen (plan.Op.AsObject),
	// mObject+1 their closes through H5Oclose (census.go: objectCalls).
	mObject = mMulti + 4
	// mLink+k-1 counts the links of plan.LinkKind k created (census.go: linkCalls).
	mLink = mObject + 2
	// mAPI1+i counts the 1.6-API creates and opens (census.go: api1Calls), which are not
	// the calls of their kind; mAttrRead the attribute reads (plan.ReadAttribute, after
	// nOpKinds), mAttrRead+1 their bytes.
	mAPI1     = mLink + 3
	mAttrRead = mAPI1 + metric(len(api1Calls))
	// mSysIO+i is field i of /proc/self/io (sysIOFields).
	mSysIO   = mAttrRead + 2
	nMetrics = mSysIO + nSysIO
)

// nOpKinds bounds the operation kinds that make a library call (plan.PassBaton is the
// last), each with its time (mKind) and census count (mCalls). plan.SelectFile, after
// them, makes none: it gets neither, and the metrics keep their numbers.
const nOpKinds = metric(plan.PassBaton) + 1

// sample is one rank's measurements of one step (or of a phase's begin/end).
type sample [nMetrics]float64

// charge books an operation's duration to its metric.
func (s *sample) charge(k plan.OpKind, seconds float64) {
	if k > 0 && mKind+metric(k) < mCalls {
		s[mKind+metric(k)] += seconds
	}
	switch k {
	case plan.Write, plan.Read:
		s[mRaw] += seconds
	case plan.CreateFile, plan.OpenFile:
		s[mFileOpen] += seconds
		s[mOpens] += seconds
	case plan.WaitBaton: // waiting for a serial group's turn to open the file
		s[mFileOpen] += seconds
	case plan.PassBaton: // the hand-off after the close
		s[mFileClose] += seconds
	case plan.FlushFile:
		s[mFileFlush] += seconds
	case plan.CloseFile:
		s[mFileClose] += seconds
	case plan.CreateGroup, plan.OpenGroup, plan.CreateDataset, plan.OpenDataset:
		s[mMetadata] += seconds
		s[mOpens] += seconds
	default:
		s[mMetadata] += seconds
	}
}

// derive sets a step's spans: what a kernel that times from before its file's open to
// after its close (mOpsSpan), or from after the open to before the close (mInner), reads on
// its clock, less h5proxy's own data preparation and verification, which the real program
// does not do.
func (s *sample) derive() {
	own := s[mPrep] - s[mPrepBefore] + s[mVerify]
	if s[mLastEnd] > 0 {
		s[mOpsSpan] = max(0, s[mLastEnd]-s[mFirstStart]-own)
		s[mInner] = max(0, s[mLastStart]-s[mFirstEnd]-own)
		s[mLastStartOwn], s[mLastEndOwn] = s[mLastStart]-own, s[mLastEnd]-own
	}
}

func (s *sample) add(o *sample) {
	for i := range s {
		switch metric(i) {
		case mStart, mEnd, mDone, mFirstStart, mFirstEnd, mLastStart, mLastEnd, mLastStartOwn, mLastEndOwn:
		case mStaged, mFileSize:
			s[i] = max(s[i], o[i])
		default:
			s[i] += o[i]
		}
	}
}

// Stat is a value reduced over ranks.
type Stat struct {
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
	Mean float64 `json:"mean"`
	Sum  float64 `json:"sum"`
}

// reduced is the cross-rank reduction of a list of samples.
type reduced struct {
	stats []([nMetrics]Stat)
}

// reduceSamples reduces every sample over the communicator with three allreduces.
func reduceSamples(c mpi.Comm, samples []sample) (reduced, error) {
	flat := make([]float64, 0, len(samples)*int(nMetrics))
	for i := range samples {
		flat = append(flat, samples[i][:]...)
	}
	mins, err := c.AllreduceFloat64(flat, mpi.OpMin)
	if err != nil {
		return reduced{}, err
	}
	maxs, err := c.AllreduceFloat64(flat, mpi.OpMax)
	if err != nil {
		return reduced{}, err
	}
	sums, err := c.AllreduceFloat64(flat, mpi.OpSum)
	if err != nil {
		return reduced{}, err
	}
	n := float64(c.Size())
	r := reduced{stats: make([][nMetrics]Stat, len(samples))}
	for i := range samples {
		for m := 0; m < int(nMetrics); m++ {
			k := i*int(nMetrics) + m
			r.stats[i][m] = Stat{Min: mins[k], Max: maxs[k], Sum: sums[k], Mean: sums[k] / n}
		}
	}
	return r, nil
}
