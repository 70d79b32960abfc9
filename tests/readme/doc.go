// Package readme holds the README test (readme_test.go, build tag readme): it extracts
// the README's fenced code blocks and runs them as written, the Go snippet as a program in
// a module of its own outside the repository, the C snippet and the Fortran example
// against the installed package with CMake and with pkg-config, and the shell lines from
// the repository root. `make test` runs it after `make build` and `make cmake-test`:
//
//	go test -tags=readme -count=1 ./tests/readme
package readme
