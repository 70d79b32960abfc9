// Package mpitest runs a test's body on several MPI ranks: the test re-launches its own test
// binary under the MPI launcher (see internal/launch), once per rank count, and the launched
// children run the body while the parent waits and reports.
//
//	func TestAllreduce(t *testing.T) {
//		if mpitest.Run(t, 1, 2, 4) {
//			return // parent: the launched runs have been checked
//		}
//		// child: the MPI body runs on every rank and checks its results there;
//		// a failure makes that rank exit non-zero, which fails the parent.
//	}
//
// The parent reports each rank count as a subtest ("np=2"), so `go test -run
// 'TestAllreduce/np=2'` launches only two ranks. A child is recognized by
// H5PROXY_MPITEST_CHILD=1 in its environment and runs only the test that launched it
// (-test.run '^TestAllreduce$'). A missing launcher fails the test: a missing MPI is never
// a skip.
package mpitest
