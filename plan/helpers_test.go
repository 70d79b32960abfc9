package plan

import (
	"strings"
	"testing"
)

// checkValidate fails the test unless err is nil for want "" or contains want.
func checkValidate(t *testing.T, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Fatalf("Validate = %v, want nil", err)
	case want != "" && err == nil:
		t.Fatalf("Validate = nil, want error containing %q", want)
	case want != "" && !strings.Contains(err.Error(), want):
		t.Fatalf("Validate = %q, want it to contain %q", err, want)
	}
}
