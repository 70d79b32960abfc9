//go:build cgo

package h5

/*
#cgo pkg-config: hdf5-openmpi
#define _GNU_SOURCE
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <hdf5.h>

typedef struct {
	char buf[4096];
	size_t len;
} h5p_libs;

// h5p_libs_cb appends the path of every loaded HDF5 core library (libhdf5*.so*, not the
// high-level libhdf5*_hl) to the newline-separated list.
static int h5p_libs_cb(struct dl_phdr_info *info, size_t size, void *data) {
	h5p_libs *l = data;
	const char *name = info->dlpi_name, *base;
	size_t n;
	(void)size;
	if (name == NULL || name[0] == 0) return 0;
	base = strrchr(name, '/');
	base = base ? base + 1 : name;
	if (strncmp(base, "libhdf5", 7) != 0 || strstr(base, "_hl") != NULL) return 0;
	n = strlen(name);
	if (l->len + n + 2 > sizeof l->buf) return 1;
	memcpy(l->buf + l->len, name, n);
	l->len += n;
	l->buf[l->len++] = '\n';
	l->buf[l->len] = 0;
	return 0;
}

static void h5p_loaded_libs(h5p_libs *l) {
	l->len = 0;
	l->buf[0] = 0;
	dl_iterate_phdr(h5p_libs_cb, l);
}
*/
import "C"

import (
	"fmt"
	"strings"
)

// HeaderVersion returns the version of the HDF5 headers h5proxy was compiled against,
// e.g. "1.14.5". Version (the library loaded at run time) must equal it: a program built
// against one HDF5 and run with another would misread its structures.
func HeaderVersion() string {
	return fmt.Sprintf("%d.%d.%d", C.H5_VERS_MAJOR, C.H5_VERS_MINOR, C.H5_VERS_RELEASE)
}

// Build returns the HDF5 build h5proxy was compiled for, as the Makefile's switch names it:
// "1.10" (Debian 12's 1.10.8) or "1.14" (HDF5=1.14), the headers' major.minor.
func Build() string { return fmt.Sprintf("%d.%d", C.H5_VERS_MAJOR, C.H5_VERS_MINOR) }

// LoadedLibraries returns the path of every HDF5 core library (libhdf5*.so, without the
// high-level library) loaded into this process, in load order: exactly one when the build
// is sound.
func LoadedLibraries() []string {
	var l C.h5p_libs
	C.h5p_loaded_libs(&l)
	return strings.Fields(C.GoString(&l.buf[0]))
}

// ScaleOffsetFullRangeUnreadable reports whether the loaded HDF5 cannot read back an
// integer scale-offset chunk whose values span the type's full range (minimum bits =
// the type's bits, stored at full precision): HDF5 1.14.5 added a bounds check
// (H5Zscaleoffset.c, "minbits >= the type's bits" where the decoder allows equality)
// that fails such a chunk on read with "filter returned failure during read", though it
// was written without error. HDFGroup/hdf5 issue 5861, fixed by pull request 5864 after
// 1.14.6; 1.10 is not affected.
func ScaleOffsetFullRangeUnreadable() bool {
	v := Version()
	return v == "1.14.5" || v == "1.14.6"
}
